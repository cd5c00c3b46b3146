// The workspace tools as VS Code runs them: vscode.workspace.fs, a visible terminal (child-process fallback),
// WorkspaceEdit edits recorded in the edit journal, VS Code's ripgrep, and one sandbox whose trust and command
// rules follow workspace trust and the settings live (the options object is shared, so updates apply at once).
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandRules } from '../../core/safety/commands';
import type { SandboxOptions } from '../../core/safety/paths';
import { createWorkspaceTools } from '../../core/tools/builtin';
import type { Tool } from '../../core/tools/types';
import type { CommandLog } from '../../core/tasks/command-log';
import { ApprovalCenter } from '../ui/approval-center';
import { DiffApproval } from '../edits/diff-approval';
import { readCurrentText, readOpenText, VscodeEditApplier } from '../edits/edit-applier';
import { JournalingApplier, RecordingRunner, type EditLedger, type StorageReporter } from '../../core/tasks/effects';
import { registerHunkReview } from '../edits/hunk-review';
import { TaskChanges } from '../edits/task-changes';
import type { Logger } from '../logger';
import { NodeCommandRunner, workerRegexScan } from '../../node';
import { watchCommandChanges, type CommandChangesListener } from '../../node/command-changes';
import { CommandSandbox } from '../../node/sandbox/command-sandbox';
import { createRipgrepSearch } from '../../node/ripgrep-search';
import { readSettings, sandboxOffBy, type ForgeSettings } from '../settings';
import { withSandboxAttribution } from '../settings-consent';
import { sandboxOffReason } from '../../core/safety/workspace-settings';
import { PtyCommandRunner } from '../terminal/pty-command-runner';
import { TerminalCommandRunner } from '../terminal/terminal-runner';
import { VscodeWorkspaceFs } from '../vscode-workspace-fs';

/** An approved edit whose tool never applied it (it failed first) has its proposed intent voided after this long. */
const PROPOSAL_TTL_MS = 60_000;

interface ToolkitOptions {
  log: Logger;
  /** The task an edit belongs to (edits only happen inside a run, one run at a time). */
  currentTaskId: () => string | undefined;
  /** The edit journal: an edit's intent is recorded before it is applied (an edit it cannot record is not applied). */
  ledger: EditLedger;
  /** Where commands are recorded before they run (a restore reports those a crash cut off). */
  commands?: () => Promise<CommandLog | undefined>;
  /** Hears storage failures (the first one is shown in the panel). */
  storage?: StorageReporter;
  spoolDir?: string;
  /** Files a command of a task changed (a bounded before/after fingerprint of the workspace). */
  onCommandChanges?: CommandChangesListener;
}

export interface Toolkit extends vscode.Disposable {
  /** The current tool set (rebuilt when the command lists change; agents pick it up when (re)built). */
  readonly tools: Tool[];
  fs: VscodeWorkspaceFs;
  approvals: ApprovalCenter;
  diffApproval: DiffApproval;
  /** The multi-file diff of a task's changes, per-file diff / undo / keep. */
  taskChanges: TaskChanges;
  runner: TerminalCommandRunner;
  sandbox: SandboxOptions;
  /** Contains every command the agent runs (terminal and child-process paths alike). */
  commandSandbox: CommandSandbox;
  /** Re-reads trust and command rules (workspace trust granted, settings changed). True when the tools were rebuilt. */
  refresh(settings?: ForgeSettings): boolean;
}

/** The user's command lists; the tool adds the built-in rules (the deny list always wins). */
export function commandRules(s: Pick<ForgeSettings, 'commandAllowList' | 'commandDenyList'>): CommandRules {
  return { allow: [...s.commandAllowList], deny: [...s.commandDenyList] };
}

/** The same strings in the same order. */
function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
/** The fields of the command rules, one by one: a change in any of them rebuilds the tools. */
function sameRules(a: CommandRules | undefined, b: CommandRules | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameList(a.allow, b.allow) && sameList(a.deny, b.deny) && a.onParseError === b.onParseError;
}
/** One limit, or per tool name; keys in the same order (as settings.json lists them). */
function sameTimeouts(a: ForgeSettings['toolTimeoutSeconds'], b: ForgeSettings['toolTimeoutSeconds']): boolean {
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return sameList(ka, kb) && ka.every((k) => a[k] === b[k]);
}

export function createToolkit(opts: ToolkitOptions): Toolkit {
  const settings = readSettings();
  const fs = new VscodeWorkspaceFs();
  const diffApproval = new DiffApproval();
  const taskChanges = new TaskChanges();
  const approvals = new ApprovalCenter({
    diff: diffApproval,
    showDiff: () => readSettings().showDiffOnProposal,
    // No disk read between Approve and the write: an open document is compared here, the rest by the applier.
    readCurrent: readOpenText,
  });
  const commandSandbox = createCommandSandbox(opts.log);
  // By default the contained child process runs the command and the Forge terminal shows it; with
  // forge.terminal.useShellIntegration on, a shell terminal runs it and this is the fallback.
  const shown = new PtyCommandRunner(new NodeCommandRunner({ spoolDir: opts.spoolDir, sandbox: commandSandbox }));
  const runner = new TerminalCommandRunner({
    fallback: shown,
    sandbox: commandSandbox,
    spoolDir: opts.spoolDir,
    enabled: () => readSettings().useShellIntegration,
    defaultMaxOutputChars: settings.commandOutputCapChars,
    log: opts.log,
    // The shell parser loads in small steps soon after activation (code cache in global storage).
    warmParserAfterMs: 3000,
    ...(opts.spoolDir ? { parserCacheDir: path.join(path.dirname(opts.spoolDir), 'code-cache') } : {}),
  });
  // Trust is read by the sandbox on every call, so one options object serves every tool set.
  const sandbox: SandboxOptions = {
    trusted: vscode.workspace.isTrusted,
    commands: commandRules(settings),
    warn: (m) => opts.log.warn(m),
  };
  const search = createRipgrepSearch(vscode.env.appRoot);
  if (!search) opts.log.info('ripgrep not found under the VS Code install; search_files uses its built-in search.');
  const applier = new JournalingApplier(
    new VscodeEditApplier(),
    opts.ledger,
    opts.currentTaskId,
    opts.log,
    opts.storage,
    readCurrentText,
  );
  const recorded = opts.commands ? new RecordingRunner(runner, opts.commands, opts.log, opts.storage) : runner;
  let commandTimeoutSeconds = settings.commandTimeoutSeconds;
  let toolTimeoutSeconds = settings.toolTimeoutSeconds;
  const workspaceRoots = () =>
    (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const watched = opts.onCommandChanges
    ? watchCommandChanges(recorded, workspaceRoots, opts.onCommandChanges)
    : recorded;
  // The approval card says who turned the sandbox off: the user's settings, or this workspace's (allowed by the user).
  const toolRunner = withSandboxAttribution(watched, sandboxOffBy);
  const build = () =>
    createWorkspaceTools({
      fs,
      runner: toolRunner,
      applier,
      search,
      sandbox,
      commandDefaultTimeoutSeconds: commandTimeoutSeconds,
      toolTimeoutSeconds,
      home: os.homedir(),
      regexScan: workerRegexScan,
    });
  let tools = build();

  const refresh = (s: ForgeSettings = readSettings()) => {
    sandbox.trusted = vscode.workspace.isTrusted;
    const next = commandRules(s);
    const same =
      sameRules(next, sandbox.commands) &&
      s.commandTimeoutSeconds === commandTimeoutSeconds &&
      sameTimeouts(s.toolTimeoutSeconds, toolTimeoutSeconds);
    if (same) return false;
    sandbox.commands = next;
    commandTimeoutSeconds = s.commandTimeoutSeconds;
    toolTimeoutSeconds = s.toolTimeoutSeconds;
    tools = build();
    return true;
  };
  const subs = [
    // While the user reads a proposed edit, its intent is recorded (durably): an approved edit is then written at once.
    approvals.onDidChange((e) => {
      const { toolCallId } = e.request;
      if (e.type === 'requested') {
        const p = e.request.preview;
        if (p?.kind !== 'edit') return;
        const before = p.isNewFile ? null : p.original;
        // Only the open task's proposals: a sub-agent's task log is never reconciled at restore, so an intent left
        // open there would stay open; its edits append their intent when applied, as before.
        if (!opts.ledger.propose || e.request.taskId !== opts.currentTaskId())
          return opts.ledger.stage?.(before, p.proposed);
        opts.ledger.propose({ taskId: e.request.taskId, path: p.path, before, after: p.proposed, toolCallId });
        return;
      }
      // Approved: the tool takes the intent as it applies the edit; one it never applied is voided after a while.
      opts.ledger.withdraw?.(toolCallId, e.decision.kind === 'approve' ? PROPOSAL_TTL_MS : undefined);
    }),
    diffApproval,
    registerHunkReview(diffApproval),
    taskChanges,
    runner,
    shown,
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      refresh();
      opts.log.info('Workspace trusted: Forge may now propose edits and run commands (with approval).');
    }),
  ];
  return {
    get tools() {
      return tools;
    },
    fs,
    approvals,
    diffApproval,
    taskChanges,
    runner,
    sandbox,
    commandSandbox,
    refresh,
    dispose: () => {
      vscode.Disposable.from(...subs).dispose();
      void commandSandbox.dispose();
    },
  };
}

/** Where full command outputs are spooled for paging. */
export function spoolDirFor(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, 'output');
}

/** The command sandbox, following the forge.sandbox.* settings live; says once, plainly, when there is none. */
function createCommandSandbox(log: Logger): CommandSandbox {
  const sandbox = new CommandSandbox({
    settings: () => {
      const s = readSettings().sandbox;
      return { enabled: s.enabled, network: s.network, allowedHosts: s.allowedHosts, envAllow: s.envAllowList };
    },
    roots: () =>
      (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    log,
  });
  void sandbox.ready().then((c) => {
    if (c.kind !== 'none') {
      log.info(`Commands run contained: ${c.summary}.`);
      return;
    }
    const why = c.reason ?? 'no sandbox is available';
    log.warn(`Commands run WITHOUT a sandbox: ${why}`);
    const offBy = sandboxOffBy();
    if (offBy) {
      // Turned off by a setting: the user's own choice (or the workspace's, which the user allowed): say whose.
      log.warn(sandboxOffReason(offBy));
      return;
    }
    void vscode.window
      .showWarningMessage(
        `Forge: commands will run without a sandbox (${why}). Only read-only commands run automatically; Forge asks before every other command.`,
        'Open Setting',
      )
      .then((pick) => {
        if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'forge.sandbox');
      });
  });
  return sandbox;
}
