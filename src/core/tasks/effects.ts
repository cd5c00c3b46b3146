// The durability rule (docs/DESIGN-durability.md) around the two side effects of a run: every edit and every
// command is recorded as intended before it happens and settled after; storage failures are reported (the first
// one loudly, through a StorageReporter). The host wraps its EditApplier and CommandRunner in these.
import type { Tool } from '../tools/types';
import type { CommandLog } from './command-log';
import type { EditIntent, EditJournal } from './journal';
import type { CommandRunner, EditApplier, FileEdit, RunRequest, RunResult } from '../workspace/types';
import { errorText } from '../error-text';

interface EffectsLogger {
  warn(message: string): void;
}

/** What an edit is recorded as before it is applied (EditJournal.beginEdit's input). */
export interface EditIntentRecord {
  taskId: string;
  path: string;
  /** null: the file did not exist before. */
  before: string | null;
  after: string;
  toolCallId?: string;
}

/** A recorded intent, to settle once the edit was applied or not. */
export interface LedgerIntent {
  commit(): Promise<void>;
  abandon(reason: string): Promise<void>;
}

/** The edit journal as the applier uses it: intent first, then the outcome. */
export interface EditLedger {
  begin(entry: EditIntentRecord): Promise<LedgerIntent>;
  /** Optional: store the texts of a proposed edit ahead of its approval, so begin() has less to write. */
  stage?(before: string | null, after: string): void;
  /**
   * Optional: record the intent of an edit proposed for approval while the user reviews it (the durable append is
   * what makes begin() slow), so that an approved edit is written at once. take() then hands it over; a proposal
   * that is not approved is withdrawn.
   */
  propose?(entry: EditIntentRecord & { toolCallId: string }): void;
  /** The proposed intent when `entry` is the edit proposed (same task, file and texts); undefined otherwise. */
  take?(entry: EditIntentRecord): Promise<LedgerIntent> | undefined;
  /**
   * The proposal of this tool call was not approved: its intent is voided. With `afterMs` (it was approved): voided
   * only if the edit was not applied by then (its tool failed first).
   */
  withdraw?(toolCallId: string, afterMs?: number): void;
}

/** The edit journal as a ledger: beginEdit (intent), then commitEdit or abandonEdit (outcome). */
export function journalLedger(journal: EditJournal | Promise<EditJournal>): EditLedger {
  const handle = (j: EditJournal, intent: EditIntent): LedgerIntent => ({
    commit: async () => void (await j.commitEdit(intent)),
    abandon: (reason) => j.abandonEdit(intent, reason),
  });
  type Proposal = { entry: EditIntentRecord; intent: Promise<EditIntent> };
  const proposed = new Map<string, Proposal>();
  /** Voids the proposal of a tool call (only `which` when given: a later proposal of the same call stays). */
  const drop = (toolCallId: string, reason: string, which?: Proposal) => {
    const p = proposed.get(toolCallId);
    if (!p || (which && p !== which)) return;
    proposed.delete(toolCallId);
    void p.intent.then(async (intent) => (await journal).abandonEdit(intent, reason)).catch(() => undefined);
  };
  return {
    async begin(entry) {
      const j = await journal;
      return handle(j, await j.beginEdit(entry));
    },
    stage(before, after) {
      void Promise.resolve(journal)
        .then((j) => j.stageBlobs([before, after]))
        .catch(() => undefined);
    },
    propose(entry) {
      drop(entry.toolCallId, 'proposed again');
      const intent = Promise.resolve(journal).then((j) => j.beginEdit({ ...entry, proposed: true }));
      intent.catch(() => undefined); // take() reports it (by falling back to begin), nobody else waits on it
      proposed.set(entry.toolCallId, { entry, intent });
    },
    take(entry) {
      const p = entry.toolCallId === undefined ? undefined : proposed.get(entry.toolCallId);
      if (!p) return undefined;
      const e = p.entry;
      if (e.taskId !== entry.taskId || e.path !== entry.path || e.before !== entry.before || e.after !== entry.after) {
        drop(entry.toolCallId!, 'the approved edit differs from the proposal');
        return undefined;
      }
      proposed.delete(entry.toolCallId!);
      return p.intent.then(async (intent) => {
        const j = await journal;
        if (!j.isOpen(intent)) throw new Error("the proposal's journal entry was settled meanwhile");
        // Recorded as approved, without waiting: a file written straight to disk needs no record (the disk tells), and
        // an editor's buffer changes only after the workbench's round trips, well after this line is in the file.
        void j.confirmProposed(intent).catch(() => undefined);
        return handle(j, intent);
      });
    },
    withdraw(toolCallId, afterMs) {
      const p = proposed.get(toolCallId);
      if (!p) return;
      if (afterMs === undefined) return drop(toolCallId, 'not approved');
      setTimeout(() => drop(toolCallId, 'approved, never applied', p), afterMs).unref?.();
    },
  };
}

/** Reports storage failures (journal, task saves) to the user the first time, and the recovery after. */
export interface StorageReporter {
  /** `consequence`: what the failure means for the user, where the usual sentence for `what` is not true. */
  failed(what: string, err: unknown, consequence?: string): void;
  succeeded(what: string): void;
}

/**
 * Wraps the WorkspaceEdit applier: the journal's intent is durable before the file is touched, and an edit that
 * cannot be journaled is not applied (Undo could never revert it). A crash between the two is settled at restore.
 */
export class JournalingApplier implements EditApplier {
  constructor(
    private readonly inner: EditApplier,
    private readonly ledger: EditLedger,
    private readonly currentTaskId: () => string | undefined,
    private readonly log: EffectsLogger,
    private readonly storage?: StorageReporter,
    /** The file as the editor shows it (open buffer first, then disk); undefined when it does not exist. */
    private readonly readCurrent: (path: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  async apply(edit: FileEdit, signal?: AbortSignal): Promise<void> {
    const taskId = edit.taskId ?? this.currentTaskId();
    if (!taskId) return this.inner.apply(edit, signal);
    const before = edit.isNewFile ? null : (edit.original ?? (await this.readCurrent(edit.path)) ?? null);
    const record: EditIntentRecord = {
      taskId,
      path: edit.path,
      before,
      after: edit.content,
      ...(edit.toolCallId ? { toolCallId: edit.toolCallId } : {}),
    };
    let intent: LedgerIntent;
    try {
      // The intent recorded while the user reviewed this very edit, or a new one now.
      const proposed = this.ledger.take?.(record);
      intent = await (proposed ? proposed.catch(() => this.ledger.begin(record)) : this.ledger.begin(record));
    } catch (err) {
      this.storage?.failed('the edit journal', err);
      throw new Error(
        `Not applied: Forge could not record this edit of ${edit.path} in its edit journal first (${errorText(err)}), so Undo could not revert it. ` +
          'The file is unchanged. Tell the user that Forge cannot write to its storage folder (disk full or read-only?).',
        { cause: err },
      );
    }
    try {
      await this.inner.apply(edit, signal);
    } catch (err) {
      // A save that failed after the buffer changed still left Forge's change in the editor: the journal must know.
      const inBuffer = (await this.readCurrent(edit.path).catch(() => undefined)) === edit.content;
      await (inBuffer ? intent.commit() : intent.abandon(errorText(err))).catch((e) =>
        this.log.warn(`edit journal: could not settle ${edit.path}: ${errorText(e)}`),
      );
      throw err;
    }
    // The outcome is recorded off the tool's path: the intent is already durable, so a crash before this line lands
    // is settled at restore (the file shows the edit, which is then marked applied). The journal keeps the order.
    void intent.commit().then(
      () => this.storage?.succeeded('the edit journal'),
      (err) => {
        this.storage?.failed('the edit journal', err);
        this.log.warn(`edit journal: could not record the outcome of ${edit.path}: ${errorText(err)}`);
      },
    );
  }
}

/** Records every command before it runs and its end after, with its output as it arrives (CommandLog). */
export class RecordingRunner implements CommandRunner {
  readonly containment?: CommandRunner['containment'];
  readonly readOutput?: CommandRunner['readOutput'];

  constructor(
    private readonly inner: CommandRunner,
    private readonly commands: () => Promise<CommandLog | undefined>,
    private readonly log: EffectsLogger,
    private readonly storage?: StorageReporter,
  ) {
    if (inner.containment) this.containment = () => inner.containment!();
    if (inner.readOutput) this.readOutput = (ref, a, b) => inner.readOutput!(ref, a, b);
  }

  async run(req: RunRequest): Promise<RunResult> {
    const log = req.taskId && req.toolCallId ? await this.commands().catch(() => undefined) : undefined;
    let handle: Awaited<ReturnType<CommandLog['start']>> | undefined;
    if (log && req.taskId && req.toolCallId) {
      try {
        handle = await log.start(req.taskId, { toolCallId: req.toolCallId, command: req.command, cwd: req.cwd });
      } catch (err) {
        // A command is not refused for this (unlike an edit, it has nothing to undo), but the user hears of it.
        this.storage?.failed('the command log', err);
        this.log.warn(`command log: could not record ${req.toolCallId}: ${errorText(err)}`);
      }
    }
    if (!handle) return this.inner.run(req);
    const onOutput = req.onOutput;
    try {
      const result = await this.inner.run({
        ...req,
        onOutput: (chunk) => {
          handle!.output(chunk);
          onOutput?.(chunk);
        },
        onStarted: (info) => {
          handle!.started(info.pid);
          req.onStarted?.(info);
        },
      });
      await handle.end({ exitCode: result.exitCode, timedOut: result.timedOut, aborted: result.aborted });
      return result;
    } catch (err) {
      await handle.end({ exitCode: null, aborted: true });
      throw err;
    }
  }

  prewarm(root: string): void {
    (this.inner as { prewarm?: (r: string) => void }).prewarm?.(root);
  }
}

/**
 * A tool whose effects happen outside Forge (an MCP server's tool), recorded like a command (docs/DESIGN-durability.md):
 * a start line before the call, an end line after, so a call a crash cut off is reported as of unknown outcome, with
 * its server and arguments, instead of a bare "interrupted".
 */
export function recordingTool<T extends Tool>(
  tool: T,
  commands: () => Promise<CommandLog | undefined>,
  call: { name: string; server?: string },
  storage?: StorageReporter,
): T {
  return {
    ...tool,
    async execute(input, ctx) {
      const log = await commands().catch(() => undefined);
      let args = '{}';
      try {
        args = JSON.stringify(input) ?? '{}';
      } catch {
        /* shown as {} */
      }
      if (args.length > 2000) args = `${args.slice(0, 2000)}...`;
      const handle = log
        ? await log
            .start(ctx.taskId, {
              toolCallId: ctx.toolCallId,
              command: call.server ? `${call.server}/${call.name}` : call.name,
              cwd: '',
              tool: { ...call, args },
            })
            .then(
              (h) => {
                storage?.succeeded('the command log');
                return h;
              },
              (err: unknown) => void storage?.failed('the command log', err),
            )
        : undefined;
      try {
        const result = await tool.execute(input, ctx);
        await handle?.end({ exitCode: result.isError ? 1 : 0 });
        return result;
      } catch (err) {
        await handle?.end({ exitCode: null, aborted: ctx.signal.aborted });
        throw err;
      }
    },
  };
}
