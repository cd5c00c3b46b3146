// What issue 13 adds around the Agent in the VS Code host: delegate_task registered on every Agent, the modes'
// context gatherers (read through the workspace fs, git through a contained child process), the last test run,
// and the slash command registry (built-ins + `.forge/commands/*.md`; MCP prompts plug in via addSource).
import * as vscode from 'vscode';
import type { SlashCommandRegistry, SlashCommandSource } from '../../core/commands/slash';
import type { Agent, AgentDeps } from '../../core/loop/agent';
import { createModeContextGatherer, type ModeContextGatherer } from '../../core/modes/context';
import { TestRunTracker } from '../../core/modes/test-runs';
import type { AgentSnapshot } from '../../core/tasks/snapshot';
import type { HostMessage } from '../../protocol/messages';
import type { Logger } from '../logger';
import { NodeCommandRunner } from '../../node';
import { buildAgent, createSlashRegistry } from '../../node/surface/agents';
import type { SurfaceRules } from '../../node/surface/rules';
import type { Toolkit } from './toolkit';
import { errorText } from '../../core/error-text';

export interface AgentExtras extends vscode.Disposable {
  slash: SlashCommandRegistry;
  testRuns: TestRunTracker;
  modeContext: ModeContextGatherer;
  /**
   * Sends the command list to the panel now, whenever `.forge/commands` changes, and when a webview (re)loads
   * (file watchers can be slow or missing on remote and network file systems).
   */
  publishTo(panel: {
    post(msg: HostMessage): void;
    observe(o: (dir: 'in' | 'out', msg: unknown) => void): vscode.Disposable;
  }): void;
  /** Re-reads the commands and republishes them (after a slash command ran: the list heals itself). */
  refresh(): void;
  /** For the MCP client: its prompts become slash commands (the list is republished). */
  addSlashSource(source: SlashCommandSource): vscode.Disposable;
}

export function createAgentExtras(toolkit: Toolkit, log: Logger): AgentExtras {
  // The same registry the CLI expands typed commands with (src/node/surface/agents.ts).
  const slash = createSlashRegistry(toolkit.fs, (m) => log.warn(m));
  const testRuns = new TestRunTracker();
  // git for review mode: a child process (never the visible terminal), contained like every command.
  const git = new NodeCommandRunner({ sandbox: toolkit.commandSandbox });
  const modeContext = createModeContextGatherer({
    fs: toolkit.fs,
    sandbox: toolkit.sandbox,
    runner: git,
    lastTestRun: () => testRuns.last(),
  });
  let post: ((msg: HostMessage) => void) | undefined;
  let generation = 0;
  const publish = () => {
    if (!post) return;
    const mine = ++generation;
    void slash.list().then(
      (commands) => {
        if (mine !== generation) return;
        post?.({
          type: 'slash_commands',
          commands: commands.slice(0, 500).map((c) => ({ ...c, description: c.description.slice(0, 1000) })),
        });
      },
      (err) => log.warn(`slash commands: ${errorText(err)}`),
    );
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/.forge/commands/**');
  const subs = [
    watcher,
    watcher.onDidCreate(publish),
    watcher.onDidChange(publish),
    watcher.onDidDelete(publish),
    vscode.workspace.onDidChangeWorkspaceFolders(publish),
  ];
  return {
    slash,
    testRuns,
    modeContext,
    publishTo(panel) {
      post = (msg) => panel.post(msg);
      subs.push(
        panel.observe((dir, msg) => {
          if (dir === 'in' && (msg as { type?: unknown } | undefined)?.type === 'ready') publish();
        }),
      );
      publish();
    },
    refresh: publish,
    addSlashSource(source) {
      const remove = slash.addSource(source);
      publish();
      return new vscode.Disposable(() => {
        remove();
        publish();
      });
    },
    dispose: () => vscode.Disposable.from(...subs).dispose(),
  };
}

/**
 * An Agent with delegate_task registered and the task's rules (a nested AGENTS.md read before the tool that
 * names its folder runs), built as the CLI builds it (src/node/surface/agents.ts).
 */
export function createDelegatingAgent(deps: AgentDeps, snapshot?: AgentSnapshot, rules?: SurfaceRules): Agent {
  return buildAgent(deps, rules ? { rules } : {}, snapshot);
}
