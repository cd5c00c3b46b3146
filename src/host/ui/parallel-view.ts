// The "Background Tasks" view in Forge's sidebar, under the chat: each background task with its status, its
// changed files (click: that file's diff), and inline actions (review, apply, merge, discard, stop).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { countOf } from '../../protocol/format';
import type { CommandHandlers } from './commands';
import type { BackgroundTask } from '../../node/parallel-tasks';
import type { FileChange } from '../../node/worktrees';
import { plural } from '../../core/plural';

const VIEW_ID = 'forge.backgroundTasks';

interface ParallelViewSource {
  list(): BackgroundTask[];
  onDidChange: vscode.Event<void>;
  act(task: BackgroundTask, action: string): Promise<void>;
  baseUri(taskId: string, relPath: string): vscode.Uri;
}

type Node = { task: BackgroundTask } | { task: BackgroundTask; change: FileChange };

const ICONS: Record<BackgroundTask['status'], string> = {
  queued: 'clock',
  starting: 'sync~spin',
  running: 'sync~spin',
  ready: 'git-pull-request',
  failed: 'error',
  applied: 'check',
  merged: 'git-merge',
  discarded: 'trash',
};

export function describeTask(t: BackgroundTask): string {
  if (t.status === 'running') return `running ${t.iteration}/${t.maxIterations}`;
  if (t.status === 'ready')
    return `${t.report?.reason ?? 'ended'}, ${countOf(t.changes?.length ?? 0, 'file')} to review`;
  if (t.status === 'failed') return `failed: ${t.error ?? ''}`;
  return t.status;
}

class Provider implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly source: ParallelViewSource) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (!node)
      return this.source
        .list()
        .filter((t) => t.status !== 'discarded')
        .map((task) => ({ task }));
    if ('change' in node || node.task.status !== 'ready') return [];
    return (node.task.changes ?? []).map((change) => ({ task: node.task, change }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const t = node.task;
    if ('change' in node) {
      const c = node.change;
      const item = new vscode.TreeItem(path.basename(c.path));
      item.description = [path.dirname(c.path) === '.' ? '' : path.dirname(c.path), c.status]
        .filter(Boolean)
        .join(' · ');
      item.resourceUri = vscode.Uri.file(path.join(t.worktree!.repo, c.path));
      const original = this.source.baseUri(t.id, c.status === 'added' ? '' : (c.from ?? c.path));
      const modified =
        c.status === 'deleted' ? this.source.baseUri(t.id, '') : vscode.Uri.file(path.join(t.worktree!.path, c.path));
      item.command = {
        command: 'vscode.diff',
        title: 'Open Changes',
        arguments: [original, modified, `${c.path} (${t.worktree!.branch})`],
      };
      return item;
    }
    const item = new vscode.TreeItem(
      t.title,
      t.status === 'ready' && t.changes?.length
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = t.id;
    item.description = describeTask(t);
    item.iconPath = new vscode.ThemeIcon(ICONS[t.status]);
    item.contextValue = `forge.bg.${t.status}`;
    const detail = t.report ? `\n${t.report.reason}: ${t.report.detail}` : '';
    item.tooltip = `${t.title}\n${t.worktree ? `branch ${t.worktree.branch}\n${t.worktree.path}` : 'waiting for a slot'}${detail}`;
    return item;
  }
}

/** Registers the view and the per-task commands its items offer (also usable from the palette via the pickers). */
export function registerParallelView(source: ParallelViewSource): vscode.Disposable {
  const provider = new Provider(source);
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: false });
  const update = () => {
    provider.refresh();
    const shown = source.list().filter((t) => t.status !== 'discarded');
    void vscode.commands.executeCommand('setContext', 'forge.hasBackgroundTasks', shown.length > 0);
    const waiting = shown.filter((t) => t.status === 'ready').length;
    view.badge = waiting ? { value: waiting, tooltip: `${plural(waiting, 'background task')} to review` } : undefined;
  };
  return vscode.Disposable.from(view, source.onDidChange(update));
}

/** The view's inline actions on a task; from the palette (no task) they open the list of tasks. */
export const parallelViewCommands = (act: ParallelViewSource['act']) => {
  const item = (action: string) => (node?: unknown) =>
    node ? act((node as Node).task, action) : vscode.commands.executeCommand('forge.parallel.show');
  return {
    'forge.parallel.review': item('Review Changes'),
    'forge.parallel.apply': item('Apply to Working Tree'),
    'forge.parallel.merge': item('Merge Branch'),
    'forge.parallel.discard': item('Discard'),
    'forge.parallel.stop': item('Stop'),
  } satisfies Partial<CommandHandlers>;
};
