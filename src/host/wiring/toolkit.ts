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
import type { AnswerLog, RecordedHunk } from '../../core/tasks/answer-log';
import type { CommandLog } from '../../core/tasks/command-log';
import { ApprovalCenter, type ApprovalAnswers } from '../ui/approval-center';
import { DiffApproval } from '../edits/diff-approval';
import { readOpenText } from '../edits/edit-applier';
import { recordingTool, type EditLedger, type StorageReporter } from '../../core/tasks/effects';
import { journaledEditApplier, journalProposals } from '../edits/journaling';
import { registerHunkReview } from '../edits/hunk-review';
import { TaskChanges } from '../edits/task-changes';
import type { Logger } from '../logger';
import { workerRegexScan } from '../../node';
import type { CommandChangesListener } from '../../node/command-changes';
import { CommandSandbox } from '../../node/sandbox/command-sandbox';
import { createRipgrepSearch } from '../../node/ripgrep-search';
import { readSettings, sandboxOffBy, type ForgeSettings } from '../settings';
import { sandboxOffReason } from '../../core/safety/workspace-settings';
import { createCommandPipeline } from '../terminal/command-pipeline';
import type { TerminalCommandRunner } from '../terminal/terminal-runner';
import { VscodeWorkspaceFs } from '../vscode-workspace-fs';

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
  /** Keeps the user's approval answers and reviews in progress across a crash. */
  answers?: AnswerLog;
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
  /** Records a tool with effects outside Forge (an MCP tool) like a command, so a crash reports it truthfully. */
  recordExternal<T extends Tool>(tool: T, call: { name: string; server?: string }): T;
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
    ...(opts.answers ? { answers: approvalAnswers(opts.answers) } : {}),
  });
  if (opts.answers) recordReviews(diffApproval, approvals, opts.answers);
  const commandSandbox = createCommandSandbox(opts.log);
  const commands = createCommandPipeline({ ...opts, sandbox: commandSandbox });
  const runner = commands.terminal;
  // Trust is read by the sandbox on every call, so one options object serves every tool set.
  const sandbox: SandboxOptions = {
    trusted: vscode.workspace.isTrusted,
    commands: commandRules(settings),
    warn: (m) => opts.log.warn(m),
  };
  const search = createRipgrepSearch(vscode.env.appRoot);
  if (!search) opts.log.info('ripgrep not found under the VS Code install; search_files uses its built-in search.');
  const applier = journaledEditApplier(opts);
  let commandTimeoutSeconds = settings.commandTimeoutSeconds;
  let toolTimeoutSeconds = settings.toolTimeoutSeconds;
  const build = () =>
    createWorkspaceTools({
      fs,
      runner: commands.tools,
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
    journalProposals(approvals, opts),
    diffApproval,
    registerHunkReview(diffApproval),
    taskChanges,
    runner,
    commands.shown,
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
    recordExternal: (tool, call) => (opts.commands ? recordingTool(tool, opts.commands, call, opts.storage) : tool),
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

/** The answer log as the approval center uses it. */
function approvalAnswers(log: AnswerLog): ApprovalAnswers {
  return {
    recall: (req) => log.recall(req.taskId, req.id),
    answered: (req, decision) => void log.answered(req.taskId, req.id, req.toolCallId, decision),
  };
}

/** Each change to a pending edit's per-hunk review is recorded, so a crash does not forget the user's decisions. */
function recordReviews(diff: DiffApproval, approvals: ApprovalCenter, log: AnswerLog): void {
  diff.onDidChangeHunks((review) => {
    const req = approvals.pending().find((r) => r.id === review.id);
    if (!req || req.preview?.kind !== 'edit') return;
    const hunks: RecordedHunk[] = [];
    for (const [index, d] of review.decisions)
      if (d.state !== 'pending') hunks.push({ index, state: d.state, ...(d.reason ? { reason: d.reason } : {}) });
    const proposed = diff.currentProposal(review.id);
    void log.reviewed(req.taskId, req.id, req.toolCallId, {
      hunks,
      ...(proposed !== undefined && proposed !== req.preview.proposed ? { proposed } : {}),
    });
  });
}
