// Project rules in VS Code: the base rules (AGENTS.md, .forge/rules) re-read when they change, one TaskRules per
// task (nested AGENTS.md joins when a tool touches its folder), the one-time offer to use other agents' rule
// files (answer kept per workspace), and "Forge: Edit Project Rules".
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent } from '../../core/loop/events';
import { AGENTS_FILE, findOtherAgentRules, type RuleSource, type TaskRules } from '../../core/rules/project-rules';
import type { WorkspaceFs } from '../../core/workspace/types';
import { WorkspaceRules } from '../../node/surface/rules';
import type { CommandHandlers } from '../ui/commands';
import type { Logger } from '../logger';
import { errorText } from '../../core/error-text';

/** workspaceState: true / false once the user answered the offer to use other agents' rule files. */
const IMPORT_OTHERS_KEY = 'forge.rules.importOtherAgents';

const TEMPLATE = `# AGENTS.md

Instructions for coding agents working in this project (Forge reads this file into every task).

## Build and test

- 

## Conventions

- 
`;

interface RuleInUse {
  path: string;
  display: string;
  kind: RuleSource['kind'];
  truncated: boolean;
}

export class RulesService implements vscode.Disposable {
  private readonly listeners = new Set<() => void>();
  private readonly subs: vscode.Disposable[] = [];
  private loading: Promise<void> = Promise.resolve();
  private offered = false;
  /** The base rules and each task's, as the CLI keeps them; every rule file is read under the read_file rule. */
  private readonly rules: WorkspaceRules;

  constructor(
    private readonly state: vscode.Memento,
    private readonly fs: WorkspaceFs,
    private readonly log: Logger,
  ) {
    // A refused rule file (a link out of the workspace, a secret, a FIFO...) is named in the log, once per reload.
    this.rules = new WorkspaceRules(
      fs,
      (m) => this.log.warn(m),
      (taskId, rules) => {
        this.log.info(
          `rules: task ${taskId} now follows ${rules
            .sources()
            .filter((s) => s.kind === 'nested')
            .map((s) => s.display)
            .join(', ')}`,
        );
        this.changed();
      },
    );
    const watcher = vscode.workspace.createFileSystemWatcher(
      '**/{AGENTS.md,CLAUDE.md,.clinerules,.cursorrules,.clinerules/*,.forge/rules/*,.github/copilot-instructions.md}',
    );
    const reload = () => this.reload();
    this.subs.push(
      watcher,
      watcher.onDidChange(reload),
      watcher.onDidCreate(reload),
      watcher.onDidDelete(reload),
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
    );
    this.reload();
  }

  ready(): Promise<void> {
    return this.loading;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  reload(): void {
    this.loading = this.loading
      .then(async () => {
        const base = await this.rules.load({ importOthers: this.state.get(IMPORT_OTHERS_KEY) === true });
        this.log.debug(`rules: ${base.length ? base.map((r) => r.display).join(', ') : 'none'}`);
        this.changed();
      })
      .catch((err) => this.log.warn(`Could not read the project rules: ${errorText(err)}`));
  }

  /** The rules of one task (created on first use; the prompt reads text() every step). */
  forTask(taskId: string): TaskRules {
    return this.rules.forTask(taskId);
  }

  /** Follows a task's events: a tool call naming a path may bring its folder's AGENTS.md in. */
  onAgentEvent(taskId: string, e: AgentEvent): void {
    if (e.type === 'tool_call_end') void this.touch(taskId, e.args);
  }

  /** Reads the AGENTS.md of the folders a call names (the agent builder awaits it before the tool runs). */
  touch(taskId: string, args: unknown): Promise<void> {
    return this.rules.touch(taskId, args);
  }

  /** What the panel shows as "Rules in use" for a task. */
  inUse(taskId?: string): RuleInUse[] {
    const sources =
      taskId && this.rules.hasTask(taskId) ? this.rules.forTask(taskId).sources() : this.rules.baseSources();
    return sources.map((s) => ({ path: s.path, display: s.display, kind: s.kind, truncated: s.truncated }));
  }

  /** Offers once per workspace to use CLAUDE.md / .clinerules / ... when there is no AGENTS.md. */
  async offerOtherAgentRules(): Promise<boolean | undefined> {
    if (this.offered || this.state.get(IMPORT_OTHERS_KEY) !== undefined) return undefined;
    this.offered = true;
    const found = await findOtherAgentRules(this.fs);
    if (!found.length) return undefined;
    const names = found.map((f) => vscode.workspace.asRelativePath(f, false)).join(', ');
    const pick = await vscode.window.showInformationMessage(
      `Forge found rules written for other agents (${names}) and no AGENTS.md. Use them as this project's rules?`,
      'Use Them',
      "Don't Use",
    );
    if (pick === undefined) return undefined;
    const use = pick === 'Use Them';
    await this.state.update(IMPORT_OTHERS_KEY, use);
    this.reload();
    await this.ready();
    return use;
  }

  /** Opens the root AGENTS.md, creating it from a template when there is none. */
  async editRules(): Promise<vscode.Uri | undefined> {
    const root = this.fs.roots()[0];
    if (!root) {
      void vscode.window.showInformationMessage('Forge: open a folder first; project rules live in its AGENTS.md.');
      return undefined;
    }
    const uri = vscode.Uri.file(path.join(root, AGENTS_FILE));
    if (!(await this.fs.stat(uri.fsPath))) await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(TEMPLATE));
    await vscode.window.showTextDocument(uri);
    return uri;
  }

  dispose(): void {
    vscode.Disposable.from(...this.subs).dispose();
    this.listeners.clear();
  }
}

export const rulesCommands = (service: RulesService) =>
  ({
    'forge.editProjectRules': () => service.editRules(),
  }) satisfies Partial<CommandHandlers>;
