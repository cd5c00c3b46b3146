// The command runner the workspace tools get, composed in one place. Innermost first:
//   run: a contained child process shown in the Forge pseudo-terminal, or (forge.terminal.useShellIntegration)
//        a shell terminal with that as its fallback
//   -> record: the command is written to the command log before it runs (a restore reports those a crash cut off)
//   -> watch: the workspace files it changed are fingerprinted before and after
//   -> attribute: the approval card says who turned the sandbox off (the user's settings or the workspace's).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandLog } from '../../core/tasks/command-log';
import { RecordingRunner, type StorageReporter } from '../../core/tasks/effects';
import type { CommandRunner } from '../../core/workspace/types';
import { NodeCommandRunner } from '../../node';
import { watchCommandChanges, type CommandChangesListener } from '../../node/command-changes';
import type { CommandSandbox } from '../../node/sandbox/command-sandbox';
import type { Logger } from '../logger';
import { readSettings, sandboxOffBy } from '../settings';
import { withSandboxAttribution } from '../settings-consent';
import { PtyCommandRunner } from './pty-command-runner';
import { TerminalCommandRunner } from './terminal-runner';

interface CommandPipelineOptions {
  log: Logger;
  sandbox: CommandSandbox;
  spoolDir?: string;
  /** Where commands are recorded before they run. */
  commands?: () => Promise<CommandLog | undefined>;
  storage?: StorageReporter;
  /** Files a command of a task changed. */
  onCommandChanges?: CommandChangesListener;
}

interface CommandPipeline {
  /** The runner that shows commands in a terminal (disposed with the toolkit). */
  terminal: TerminalCommandRunner;
  /** The pseudo-terminal fallback (disposed with the toolkit). */
  shown: PtyCommandRunner;
  /** What the tools run commands through: every stage above, in order. */
  tools: CommandRunner;
}

type Stage = (inner: CommandRunner) => CommandRunner;

export function createCommandPipeline(opts: CommandPipelineOptions): CommandPipeline {
  const shown = new PtyCommandRunner(new NodeCommandRunner({ spoolDir: opts.spoolDir, sandbox: opts.sandbox }));
  const terminal = new TerminalCommandRunner({
    fallback: shown,
    sandbox: opts.sandbox,
    spoolDir: opts.spoolDir,
    enabled: () => readSettings().useShellIntegration,
    defaultMaxOutputChars: readSettings().commandOutputCapChars,
    log: opts.log,
    // The shell parser loads in small steps soon after activation (code cache in global storage).
    warmParserAfterMs: 3000,
    ...(opts.spoolDir ? { parserCacheDir: path.join(path.dirname(opts.spoolDir), 'code-cache') } : {}),
  });
  const { commands, onCommandChanges } = opts;
  const stages: Stage[] = [];
  if (commands) stages.push((r) => new RecordingRunner(r, commands, opts.log, opts.storage));
  if (onCommandChanges) stages.push((r) => watchCommandChanges(r, workspaceRoots, onCommandChanges));
  stages.push((r) => withSandboxAttribution(r, sandboxOffBy));
  const tools = stages.reduce<CommandRunner>((inner, stage) => stage(inner), terminal);
  return { terminal, shown, tools };
}

function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
