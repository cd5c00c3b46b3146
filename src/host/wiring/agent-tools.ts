// What every task's Agent works with besides the model: the tools (workspace fs, terminal, diff approval,
// approvals), the extras (slash commands, modes, the last test run) and the store of full tool outputs.
import type * as vscode from 'vscode';
import { InMemoryOutputStore } from '../../core/context/output-store';
import { createAgentExtras, type AgentExtras } from './agent-extras';
import { recordedLedger } from '../session/durability';
import type { Recovery } from '../session/recovery';
import { createToolkit, spoolDirFor, type Toolkit } from './toolkit';
import type { Logger } from '../logger';
import type { WorkspaceStorage } from './storage';

interface AgentTools {
  toolkit: Toolkit;
  extras: AgentExtras;
  /** Full tool outputs the loop shortened (shared by every task's Agent). */
  outputs: InMemoryOutputStore;
}

interface AgentToolsDeps {
  context: vscode.ExtensionContext;
  log: Logger;
  storage: WorkspaceStorage;
  currentTaskId(): string | undefined;
  /** Hears each recorded edit (checkpoints, audit) and the files a command changed; made once storage is open. */
  recovery(): Recovery | undefined;
}

export function createAgentTools({ context, log, storage, currentTaskId, recovery }: AgentToolsDeps): AgentTools {
  const { durable } = storage;
  const outputs = new InMemoryOutputStore();
  const toolkit = createToolkit({
    log,
    currentTaskId,
    // Edits happen only in runs, which start after `ready`; the journal is open by then.
    ledger: recordedLedger(durable.ledger(storage.opened.then(([, journal]) => journal)), (entry) =>
      recovery()?.onFileRecorded(entry),
    ),
    commands: async () => durable.commands,
    storage: durable.health,
    answers: durable.answers,
    spoolDir: spoolDirFor(context),
    onCommandChanges: (taskId, toolCallId, files, more, changes) =>
      recovery()?.onCommandChanges(taskId, toolCallId, files, more, changes),
  });
  context.subscriptions.push(toolkit);
  const extras = createAgentExtras(toolkit, log);
  context.subscriptions.push(extras);
  return { toolkit, extras, outputs };
}
