// Background tasks in git worktrees, in VS Code: "Forge: Start Task in Background", a status bar item with
// what runs and what waits for review, and per finished task: review (VS Code's multi-file diff editor),
// apply to the working tree, merge the branch, or discard. Conflicts are shown, never resolved here.
// Outside git, tasks run in the panel, one at a time, as before.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Agent } from '../../core/loop/agent';
import type { MemoryPort } from '../../core/memory/port';
import type { ApprovalRequest, Approver } from '../../core/safety/approval';
import { createWorkspaceTools } from '../../core/tools/builtin';
import type { ApprovalDecision } from '../../core/tools/types';
import type { CommandHandlers } from './commands';
import type { Logger } from '../logger';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs, workerRegexScan } from '../../node';
import { ParallelTasks, type BackgroundTask } from '../../node/parallel-tasks';
import { CommandSandbox } from '../../node/sandbox/command-sandbox';
import { baseText, repoRoot, type TaskWorktree } from '../../node/worktrees';
import { readSettings, sandboxOffBy } from '../settings';
import { withSandboxAttribution } from '../settings-consent';
import { agentConfigFrom } from '../wiring/agent-config';
import type { SwitchableModel } from '../wiring/model-factory';
import { describeTask as describe, parallelViewCommands, registerParallelView } from './parallel-view';
import { commandRules } from '../wiring/toolkit';
import { errorText } from '../../core/error-text';

const BASE_SCHEME = 'forge-base';

interface ParallelUiDeps {
  model: SwitchableModel;
  memory?: MemoryPort;
  log: Logger;
  /** Worktrees live here (global storage), outside the user's folders. */
  worktreeDir: string;
}

function maxParallelTasks(): number {
  const v = vscode.workspace.getConfiguration('forge').get<number>('parallel.maxTasks', 2);
  return Number.isInteger(v) && v >= 1 ? Math.min(v, 8) : 2;
}

/**
 * Approvals for a task in its own worktree: edits are allowed (nothing reaches the user's tree before the
 * review), contained commands too; an uncontained command or a network tool asks with a notification.
 */
/** Asks a person about a background task's call (what its standing approvals do not cover), in a notification. */
class WorktreeApprover implements Approver {
  constructor(private readonly title: string) {}

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const what = req.sensitive
      ? `${req.preview?.kind === 'edit' && req.preview.isNewFile ? 'create' : 'edit'} ${req.sensitive.path} (${req.sensitive.notice})`
      : req.preview?.kind === 'command'
        ? `run "${req.preview.command}" (${req.preview.containment ?? 'not contained'})`
        : `use ${req.toolName}`;
    const pick = await Promise.race([
      vscode.window.showWarningMessage(
        `Forge (background: ${this.title}) wants to ${what}.`,
        ...(req.sensitive ? ['Allow', 'Reject'] : ['Allow', 'Always for This Task', 'Reject']),
      ),
      new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
    ]);
    if (pick === 'Allow') return { kind: 'approve', scope: 'once' };
    if (pick === 'Always for This Task') return { kind: 'approve', scope: 'task' };
    return { kind: 'reject', reason: pick === 'Reject' ? 'The user rejected it.' : 'Not answered.' };
  }
}

export class ParallelTasksUi implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('forge.parallel', vscode.StatusBarAlignment.Left, 49);
  private readonly subs: vscode.Disposable[] = [];
  private readonly changes = new vscode.EventEmitter<void>();
  /** Fires when any background task changes (the view, tests). */
  readonly onDidChange = this.changes.event;
  private parallel: ParallelTasks | undefined;
  private repo: string | undefined;
  private adopted: Promise<void> | undefined;

  constructor(private readonly deps: ParallelUiDeps) {
    this.item.name = 'Forge background tasks';
    this.item.command = 'forge.parallel.show';
    this.subs.push(
      this.item,
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, {
        provideTextDocumentContent: (uri) => this.baseContent(uri),
      }),
      this.changes,
      registerParallelView({
        list: () => this.parallel?.list() ?? [],
        onDidChange: this.onDidChange,
        act: (task, action) => this.act(task, action),
        baseUri,
      }),
    );
  }

  /** The scheduler (created for a git workspace on first use). */
  async tasks(): Promise<ParallelTasks | undefined> {
    // Looked up until found (the user may run `git init` after activation).
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    this.repo ??= folder ? await repoRoot(folder) : undefined;
    const repo = this.repo;
    if (!repo) return undefined;
    this.parallel ??= new ParallelTasks({
      repo,
      maxTasks: maxParallelTasks,
      worktreeDir: this.deps.worktreeDir,
      makeAgent: (wt, task) => this.makeAgent(wt, task),
      onChange: (t) => this.onChange(t),
      log: (m) => this.deps.log.warn(m),
    });
    // Tasks a reload interrupted or left unreviewed come back, ready for a decision (before any new task
    // starts, so a worktree being created is never mistaken for a left one).
    this.adopted ??= this.parallel.adoptExisting().then(
      () => undefined,
      (err) => this.deps.log.warn(`background tasks: could not restore worktrees: ${errorText(err)}`),
    );
    await this.adopted;
    return this.parallel;
  }

  async startCommand(text?: string): Promise<BackgroundTask | undefined> {
    const par = await this.tasks();
    const task =
      text ??
      (await vscode.window.showInputBox({
        title: 'Forge: task to run in the background',
        prompt: par
          ? `Runs in its own git worktree (branch forge/...), up to ${maxParallelTasks()} at once.`
          : 'This folder is not a git repository: the task will run in the panel, in place.',
        ignoreFocusOut: true,
      }));
    if (!task?.trim()) return undefined;
    if (!par) {
      // Outside git there is no isolation: tasks run in place, one at a time, in the panel (as New Task does).
      const pick = await vscode.window.showInformationMessage(
        'Background tasks need a git repository (each runs in its own worktree). Run this task in the panel instead?',
        'Run in Panel',
      );
      if (pick) await vscode.commands.executeCommand('forge.newTask', task.trim());
      return undefined;
    }
    return par.start(task.trim());
  }

  async showCommand(): Promise<void> {
    const par = await this.tasks();
    const list = par?.list().filter((t) => t.status !== 'discarded') ?? [];
    if (!list.length) {
      void vscode.window.showInformationMessage(
        'No background tasks. Start one with "Forge: Start Task in Background".',
      );
      return;
    }
    const picked = await vscode.window.showQuickPick(
      list.map((t) => ({
        label: `${statusIcon(t)} ${t.title}`,
        description: describe(t),
        detail: t.worktree?.branch,
        task: t,
      })),
      { title: 'Forge: background tasks' },
    );
    if (picked) await this.act(picked.task);
  }

  /** Asks what to do with a task and does it. */
  async act(given: BackgroundTask, preset?: string): Promise<void> {
    const par = (await this.tasks())!;
    const task = par.get(given.id) ?? given;
    const actions =
      task.status === 'ready'
        ? ['Review Changes', 'Apply to Working Tree', 'Merge Branch', 'Discard']
        : task.status === 'running' || task.status === 'queued' || task.status === 'starting'
          ? ['Stop']
          : task.status === 'failed'
            ? ['Discard']
            : [];
    const action =
      preset ?? (await vscode.window.showQuickPick(actions, { title: `${task.title} (${describe(task)})` }));
    try {
      if (action === 'Review Changes') await this.review(task);
      else if (action === 'Stop') par.stop(task.id);
      else if (action === 'Discard') {
        const ok = await vscode.window.showWarningMessage(
          `Discard "${task.title}"? Its worktree and branch ${task.worktree?.branch ?? ''} are deleted.`,
          { modal: true },
          'Discard',
        );
        if (ok) await par.discard(task.id);
      } else if (action === 'Apply to Working Tree' || action === 'Merge Branch') {
        const result = action === 'Merge Branch' ? await par.merge(task.id) : await par.apply(task.id);
        if (result.ok) void vscode.window.showInformationMessage(`Forge: ${result.message}`);
        else await this.showConflict(task, result.message, result.conflicts, action === 'Merge Branch');
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`Forge: ${errorText(err)}`);
    }
  }

  /** VS Code's multi-file diff editor: each changed file, the task's start vs its version. */
  async review(task: BackgroundTask): Promise<void> {
    const wt = task.worktree;
    if (!wt || !task.changes?.length) {
      void vscode.window.showInformationMessage(`Forge: "${task.title}" changed no files.`);
      return;
    }
    const resources = task.changes.map((c) => {
      const label = vscode.Uri.file(path.join(wt.repo, c.path));
      const original = baseUri(task.id, c.status === 'added' ? '' : (c.from ?? c.path));
      const modified = c.status === 'deleted' ? baseUri(task.id, '') : vscode.Uri.file(path.join(wt.path, c.path));
      return [label, original, modified];
    });
    await vscode.commands.executeCommand('vscode.changes', `Forge: ${task.title} (${wt.branch})`, resources);
  }

  dispose(): void {
    void this.parallel?.dispose();
    vscode.Disposable.from(...this.subs).dispose();
  }

  private makeAgent(wt: TaskWorktree, task: BackgroundTask): Agent {
    const settings = readSettings();
    const sandbox = new CommandSandbox({
      settings: () => {
        const s = readSettings().sandbox;
        return { enabled: s.enabled, network: s.network, allowedHosts: s.allowedHosts, envAllow: s.envAllowList };
      },
      roots: () => [wt.path],
      log: this.deps.log,
    });
    const runner = withSandboxAttribution(new NodeCommandRunner({ sandbox }), sandboxOffBy);
    const tools = createWorkspaceTools({
      fs: new NodeWorkspaceFs([wt.path]),
      runner,
      applier: new DiskEditApplier({ roots: () => [wt.path] }),
      home: os.homedir(),
      sandbox: { trusted: vscode.workspace.isTrusted, commands: commandRules(settings) },
      commandDefaultTimeoutSeconds: settings.commandTimeoutSeconds,
      toolTimeoutSeconds: settings.toolTimeoutSeconds,
      regexScan: workerRegexScan,
    });
    const base = agentConfigFrom(settings, this.deps.model);
    const contained = () => runner.containment().kind !== 'none';
    const config = {
      ...base,
      // In its own worktree a background task edits, and runs contained commands, without asking: the user reviews
      // the branch when it finishes. The control plane is still asked (Policy: sensitive calls), uncontained commands too.
      policy: {
        standing: () => ({
          ...base.policy?.standing?.(),
          write: 'a background task in its own worktree',
          ...(contained() ? { execute: 'a background task in its own worktree, contained' } : {}),
        }),
      },
      environment: () =>
        `Workspace folder: ${wt.path} (a git worktree on branch ${wt.branch}; the user reviews all changes when you finish)\nOS: ${os.platform()} ${os.release()}\nRunning in the background: nobody watches; finish with task_completion.`,
    };
    const agent = new Agent({
      model: this.deps.model,
      tools,
      approver: new WorktreeApprover(task.title),
      config,
      memory: this.deps.memory,
      log: (m) => this.deps.log.debug(m),
    });
    agent.on((e) => {
      if (e.type === 'run_end') void sandbox.dispose();
    });
    return agent;
  }

  private onChange(t: BackgroundTask): void {
    this.updateStatusBar();
    this.changes.fire();
    if (t.status === 'ready') {
      const n = t.changes?.length ?? 0;
      const head = `Forge: background task "${t.title}" ended (${t.report?.reason ?? 'done'}), ${n} file${n === 1 ? '' : 's'} changed on ${t.worktree?.branch}.`;
      void vscode.window.showInformationMessage(head, 'Review', 'Apply', 'Merge', 'Discard').then((pick) => {
        const map: Record<string, string> = {
          Review: 'Review Changes',
          Apply: 'Apply to Working Tree',
          Merge: 'Merge Branch',
          Discard: 'Discard',
        };
        if (pick) void this.act(t, map[pick]);
      });
    } else if (t.status === 'failed') {
      void vscode.window.showErrorMessage(`Forge: background task "${t.title}" failed: ${t.error ?? 'unknown error'}`);
    }
  }

  private updateStatusBar(): void {
    const all = this.parallel?.list() ?? [];
    const running = all.filter((t) => t.status === 'running' || t.status === 'starting').length;
    const queued = all.filter((t) => t.status === 'queued').length;
    const ready = all.filter((t) => t.status === 'ready').length;
    if (!running && !queued && !ready) {
      this.item.hide();
      return;
    }
    const parts = [
      running ? `${running} running` : '',
      queued ? `${queued} queued` : '',
      ready ? `${ready} to review` : '',
    ].filter(Boolean);
    this.item.text = `${running ? '$(sync~spin)' : '$(git-branch)'} ${parts.join(' · ')}`;
    this.item.tooltip = all
      .filter((t) => t.status !== 'discarded')
      .map((t) => `${t.title}: ${describe(t)}`)
      .join('\n');
    this.item.show();
  }

  private async baseContent(uri: vscode.Uri): Promise<string> {
    const [, id, ...rest] = uri.path.split('/');
    const rel = rest.join('/');
    const wt = rel ? this.parallel?.get(id)?.worktree : undefined;
    return wt ? ((await baseText(wt, rel)) ?? '') : '';
  }

  /** Conflicts are shown with the files, never resolved here. */
  private async showConflict(
    task: BackgroundTask,
    message: string,
    conflicts: string[],
    merging: boolean,
  ): Promise<void> {
    const options = merging ? ['Open Conflicts', 'Source Control'] : ['Merge Branch Instead', 'Review Changes'];
    const pick = await vscode.window.showWarningMessage(`Forge: ${message}`, ...options);
    const repo = task.worktree?.repo;
    if (pick === 'Open Conflicts' && repo)
      for (const f of conflicts.slice(0, 10))
        await vscode.window.showTextDocument(vscode.Uri.file(path.join(repo, f)), { preview: false });
    else if (pick === 'Source Control') await vscode.commands.executeCommand('workbench.view.scm');
    else if (pick === 'Merge Branch Instead') await this.act(task, 'Merge Branch');
    else if (pick === 'Review Changes') await this.review(task);
  }
}

function baseUri(taskId: string, rel: string): vscode.Uri {
  return vscode.Uri.from({ scheme: BASE_SCHEME, path: `/${taskId}/${rel}` });
}

function statusIcon(t: BackgroundTask): string {
  return {
    queued: '$(clock)',
    starting: '$(sync~spin)',
    running: '$(sync~spin)',
    ready: '$(git-pull-request)',
    failed: '$(error)',
    applied: '$(check)',
    merged: '$(git-merge)',
    discarded: '$(trash)',
  }[t.status];
}

export const parallelCommands = (ui: ParallelTasksUi) =>
  ({
    'forge.parallel.start': (text?: unknown) => ui.startCommand(text as string | undefined),
    'forge.parallel.show': () => ui.showCommand(),
    ...parallelViewCommands((task, action) => ui.act(task, action)),
  }) satisfies Partial<CommandHandlers>;
