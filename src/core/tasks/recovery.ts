// Restore-time reconciliation (docs/DESIGN-durability.md): what the journal and the command log recorded as
// begun but never finished is compared with the disk, settled, and told to the model as the result of the tool
// call a crash cut off, instead of a bare "interrupted" (or a stale approval asked again).
import { danglingToolCalls } from '../context/history';
import type { ChatMessage } from '../model/types';
import type { ApprovalRequest } from '../safety/approval';
import type { AnswerLog } from './answer-log';
import type { CommandLog, ExternalCall } from './command-log';
import { cutCompactionNotes } from './cut-compaction';
import type { EditJournal, JournalEntry, OpenIntent } from './journal';
import type { AgentSnapshot } from './snapshot';
import type { TaskRecord } from './task-format';
import { errorText } from '../error-text';

/** The workspace as a restore sees it: the disk, and unsaved editor buffers (VS Code's hot exit keeps them). */
export interface WorkspaceProbe {
  /** Content on disk; null when the file does not exist. */
  readDisk(path: string): Promise<string | null>;
  /** The text of an open editor buffer with unsaved changes, if any. */
  unsavedText?(path: string): Promise<string | undefined>;
  /** Saves that buffer; false when it could not. */
  save?(path: string): Promise<boolean>;
  /** Drops the buffer's unsaved changes. */
  revert?(path: string): Promise<void>;
  /**
   * Whether a command started at `startedAt` may still be running: its process (`pid`, when recorded) is alive,
   * or, without one, a Forge terminal survived the reload.
   */
  commandMayBeRunning?(startedAt: number, pid?: number): boolean;
}

type EditOutcome = 'applied' | 'saved' | 'rolled-back' | 'not-applied' | 'unknown';

type EffectFact =
  | { kind: 'edit'; toolCallId: string; path: string; outcome: EditOutcome }
  | {
      kind: 'command';
      toolCallId: string;
      command: string;
      startedAt: number;
      outputTail: string;
      outputChars: number;
      mayBeRunning: boolean;
      /** A tool call with outside effects (an MCP tool), not a shell command. */
      tool?: ExternalCall;
    };

/**
 * Settles the task's open edit intents against the disk: on disk -> applied; only in an unsaved buffer -> saved
 * (or rolled back when saving fails); still the original -> not applied; anything else -> unknown. The journal
 * records each outcome, so the next restore finds nothing open.
 */
export async function settleEdits(
  journal: EditJournal,
  taskId: string,
  probe: WorkspaceProbe,
  log: (m: string) => void = () => undefined,
  /** Only intents at least this old (an edit being applied right now is not a crash's leftover). */
  opts: { minAgeMs?: number; now?: number; approvedCalls?: ReadonlySet<string> } = {},
): Promise<EffectFact[]> {
  const facts: EffectFact[] = [];
  const cutoff = (opts.now ?? Date.now()) - (opts.minAgeMs ?? 0);
  for (const intent of await journal.openIntents(taskId)) {
    if (opts.minAgeMs !== undefined && intent.at > cutoff) continue;
    // A proposal the user approved (the answer log says so) is an approved edit, even if its confirmation line
    // never reached the journal: an unsaved buffer holding it is the edit, to be saved.
    const approved = !!intent.toolCallId && !!opts.approvedCalls?.has(intent.toolCallId);
    const settled = approved && intent.proposed ? { ...intent, proposed: undefined } : intent;
    const outcome = await settleOne(journal, settled, probe).catch((err) => {
      log(`[recovery] cannot settle the edit of ${intent.path}: ${errorText(err)}`);
      return 'unknown' as const;
    });
    // A proposal whose edit is not in the file was, as far as anyone can tell, never approved: nothing to report
    // (its approval is asked again if the run still waits for it).
    const unapproved = settled.proposed && outcome === 'not-applied';
    log(
      `[recovery] edit ${taskId}#${intent.seq} (${intent.path}) ${unapproved ? 'proposed, not applied, before a reload' : `interrupted by a reload: ${outcome}`}`,
    );
    if (intent.toolCallId && !unapproved)
      facts.push({ kind: 'edit', toolCallId: intent.toolCallId, path: intent.path, outcome });
  }
  return facts;
}

async function settleOne(journal: EditJournal, intent: OpenIntent, probe: WorkspaceProbe): Promise<EditOutcome> {
  const disk = await probe.readDisk(intent.path);
  if (intent.after !== undefined && disk === intent.after) {
    await journal.commitEdit(intent);
    return 'applied';
  }
  if (intent.proposed) {
    // Recorded while it waited for approval and never confirmed (see EditJournal.confirmProposed): not approved. An
    // unsaved buffer that happens to hold it says nothing about an approval: it is neither saved nor reverted.
    await journal.abandonEdit(intent, 'proposed, not approved before a reload');
    return 'not-applied';
  }
  const buffer = await probe.unsavedText?.(intent.path);
  if (buffer !== undefined && intent.after !== undefined && intent.after !== null && sameText(buffer, intent.after)) {
    // The user approved this edit; it reached the editor but not the disk. Finish it (and journal it) if we can.
    if (await probe.save?.(intent.path)) {
      await journal.commitEdit(intent);
      return 'saved';
    }
    await probe.revert?.(intent.path);
    await journal.abandonEdit(intent, 'unsaved change rolled back after a reload');
    return 'rolled-back';
  }
  if (intent.before !== undefined && disk === intent.before) {
    await journal.abandonEdit(intent, 'not applied before a reload');
    return 'not-applied';
  }
  await journal.abandonEdit(intent, 'the file holds neither the original nor the edit after a reload');
  return 'unknown';
}

/** Commands a crash cut off; each is reported once (marked in the log). */
async function settleCommands(commands: CommandLog, taskId: string, probe: WorkspaceProbe): Promise<EffectFact[]> {
  const facts: EffectFact[] = [];
  for (const c of await commands.interrupted(taskId)) {
    facts.push({
      kind: 'command',
      toolCallId: c.toolCallId,
      command: c.command,
      startedAt: c.startedAt,
      outputTail: c.outputTail,
      outputChars: c.outputChars,
      mayBeRunning: probe.commandMayBeRunning?.(c.startedAt, c.pid) ?? true,
      ...(c.tool ? { tool: c.tool } : {}),
    });
    await commands.markReported(taskId, c.toolCallId);
  }
  return facts;
}

interface Reconciled {
  snapshot: AgentSnapshot;
  /** One line per settled effect, for the panel. */
  notes: string[];
  changed: boolean;
}

/**
 * Gives every tool call a crash cut off the result the facts support. A pending approval whose edit is already
 * on disk is not asked again: it is answered "applied". Calls without facts are left to the usual handling.
 */
function reconcileSnapshot(input: AgentSnapshot, facts: readonly EffectFact[], answered = false): Reconciled {
  const snapshot = structuredClone(input);
  const byCall = new Map(facts.map((f) => [f.toolCallId, f]));
  const notes: string[] = [];
  const dangling = danglingToolCalls(snapshot.history);
  if (!dangling.some((c) => byCall.has(c.id))) return { snapshot, notes, changed: false };

  const pendingId = snapshot.pending?.calls[0]?.id;
  const pendingFact = pendingId ? byCall.get(pendingId) : undefined;
  // Keep asking only when the approved edit never reached the disk and nothing after it ran.
  const keepPending =
    !!snapshot.pending &&
    (!pendingFact || (pendingFact.kind === 'edit' && pendingFact.outcome === 'not-applied')) &&
    !dangling.slice(1).some((c) => byCall.has(c.id));
  if (keepPending) {
    // An answer the user already gave is taken by the resumed run (its own note says so), not asked again.
    if (pendingFact?.kind === 'edit' && !answered)
      notes.push(
        `The approved edit of ${pendingFact.path} had not reached the disk when Forge was reloaded; it is asked again.`,
      );
    return { snapshot, notes, changed: false };
  }
  snapshot.pending = undefined;
  const results: ChatMessage[] = [];
  for (const call of dangling) {
    const fact = byCall.get(call.id);
    if (!fact) {
      results.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: 'Not run: Forge was reloaded before this call ran. Call it again if it is still needed.',
        isError: true,
      });
      continue;
    }
    const { content, isError, note } = describe(fact);
    results.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}) });
    notes.push(note);
  }
  snapshot.history.push(...results);
  return { snapshot, notes, changed: true };
}

function describe(f: EffectFact): { content: string; isError: boolean; note: string } {
  if (f.kind === 'command' && f.tool) {
    const t = f.tool;
    const which = t.server ? `the MCP tool "${t.name}" of server "${t.server}"` : `the tool "${t.name}"`;
    return {
      isError: true,
      content: [
        `Unknown outcome: Forge was reloaded while ${which} was running (started ${new Date(f.startedAt).toISOString()}). No result came back, and the server may have finished the call after the reload: whether it took effect is unknown.`,
        `Arguments: ${t.args}`,
        'Do NOT call it again blindly: first check whether its effect is there (or ask the user).',
      ].join('\n'),
      note: `A call of ${which} was cut off by the reload: its outcome is unknown. The model was told to check before calling it again.`,
    };
  }
  if (f.kind === 'command') {
    const started = new Date(f.startedAt).toISOString();
    const output =
      f.outputChars === 0
        ? '(no output was captured)'
        : `${f.outputChars > f.outputTail.length ? `[last ${f.outputTail.length} of ${f.outputChars} characters]\n` : ''}${f.outputTail.replace(/\s+$/, '')}`;
    const running = f.mayBeRunning
      ? 'It MAY STILL BE RUNNING (its process or a Forge terminal survived the reload).'
      : 'It is not running any more; it may have stopped part way.';
    return {
      isError: true,
      content: [
        `Interrupted: Forge was reloaded while this command was running (started ${started}); its exit code is unknown.`,
        `$ ${f.command}`,
        `Output so far:\n${output}`,
        running,
        'Do NOT run it again blindly: first check what it already did (its output above, the files it writes, git status), or ask the user.',
      ].join('\n'),
      note: `A command was cut off by the reload: \`${oneLine(f.command)}\`. ${f.mayBeRunning ? 'It may still be running in the Forge terminal.' : 'It is not running any more.'} The model was told not to rerun it blindly.`,
    };
  }
  switch (f.outcome) {
    case 'applied':
      return {
        isError: false,
        content: `Applied: this edit of ${f.path} was written before Forge was reloaded (checked against the disk after the reload). Do not apply it again; re-read the file if you need its content.`,
        note: `The edit of ${f.path} was written before the reload: marked applied.`,
      };
    case 'saved':
      return {
        isError: false,
        content: `Applied: this edit of ${f.path} had reached the editor but was not saved when Forge was reloaded; Forge saved it after the reload. Do not apply it again.`,
        note: `The edit of ${f.path} was in the editor but unsaved at the reload: Forge saved it (Undo can revert it).`,
      };
    case 'rolled-back':
      return {
        isError: true,
        content: `Not applied: this edit of ${f.path} had reached the editor but not the disk when Forge was reloaded, and it could not be saved, so Forge reverted the unsaved change. The file is as before; propose the edit again if it is still needed.`,
        note: `The unsaved edit of ${f.path} could not be saved after the reload and was rolled back.`,
      };
    case 'not-applied':
      return {
        isError: true,
        content: `Not applied: Forge was reloaded before this edit of ${f.path} was written; the file is unchanged. Propose it again if it is still needed.`,
        note: `The edit of ${f.path} had not been written before the reload.`,
      };
    default:
      return {
        isError: true,
        content: `Unknown: Forge was reloaded while writing this edit, and ${f.path} now holds neither the original nor the edited content (changed outside Forge?). Re-read it before doing anything else.`,
        note: `${f.path} changed outside Forge while an edit was being written; the model was asked to re-read it.`,
      };
  }
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function sameText(a: string, b: string): boolean {
  return a === b || a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

/**
 * The whole restore-time step for one saved task: settle its open edits and cut-off commands against the
 * workspace, then give the cut-off tool calls their results. Returns the record to restore and notes for the panel.
 */
export async function reconcileTask(
  record: TaskRecord,
  deps: {
    journal: EditJournal;
    commands?: CommandLog;
    answers?: AnswerLog;
    probe: WorkspaceProbe;
    log?: (m: string) => void;
  },
): Promise<{ record: TaskRecord; notes: string[]; changed: boolean }> {
  const approvedCalls = deps.answers ? await deps.answers.approvedCalls(record.id).catch(() => undefined) : undefined;
  const facts = [
    ...(await settleEdits(deps.journal, record.id, deps.probe, deps.log, approvedCalls ? { approvedCalls } : {})),
    ...(deps.commands ? await settleCommands(deps.commands, record.id, deps.probe) : []),
  ];
  facts.push(...(await journaledEdits(deps.journal, record, facts)));
  const answerNote = await recalledAnswerNote(record, deps.answers);
  const cut = await cutRestoreNote(record, deps);
  if (cut) record = cut.record;
  const first = [...(cut ? [cut.note] : []), ...(await cutCompactionNotes(record.id, deps.answers))];
  if (!facts.length) return { record, notes: [...first, ...(answerNote ? [answerNote] : [])], changed: !!cut };
  const r = reconcileSnapshot(record.snapshot as AgentSnapshot, facts, !!answerNote);
  const kept = r.snapshot.pending && answerNote ? [answerNote] : [];
  return {
    record: { ...record, snapshot: r.snapshot },
    notes: [...first, ...r.notes, ...kept],
    changed: r.changed || !!cut,
  };
}

/**
 * A checkpoint restore a crash cut off. Each file whose restore target is known (the journal's content before the
 * restore's first edit of it) is told as restored or not, as the disk has it; a restore recorded without its target
 * (older lines) is told as "may be partly restored". The record gets a note for the model (told with the next
 * message); the returned note is for the user. undefined when none was cut off.
 */
async function cutRestoreNote(
  record: TaskRecord,
  deps: { answers?: AnswerLog; journal: EditJournal; probe: WorkspaceProbe },
): Promise<{ record: TaskRecord; note: string } | undefined> {
  const cut = deps.answers ? await deps.answers.cutRestores(record.id).catch(() => []) : [];
  if (!cut.length) return undefined;
  const entries = await deps.journal.entries(record.id).catch(() => []);
  const restored = new Set<string>();
  const notRestored = new Set<string>();
  const unknown = new Set<string>();
  for (const c of cut) {
    for (const [i, file] of c.files.entries()) {
      const target = c.toSeq === undefined ? undefined : firstAfter(entries, c.paths?.[i], c.toSeq);
      const disk = target && (await deps.probe.readDisk(target.path).catch(() => undefined));
      if (!target || disk === undefined) unknown.add(file);
      else (disk === target.before ? restored : notRestored).add(file);
    }
  }
  notRestored.forEach((f) => restored.delete(f)); // two cut restores of one file: the later one did not finish it
  const parts = [
    restored.size ? `${listOf([...restored])} ${restored.size === 1 ? 'was' : 'were'} restored` : '',
    notRestored.size ? `${listOf([...notRestored])} ${notRestored.size === 1 ? 'was' : 'were'} not restored` : '',
    unknown.size ? `${listOf([...unknown])} may be partly restored` : '',
  ].filter(Boolean);
  const what = parts.join('; ');
  const snapshot = structuredClone(record.snapshot as AgentSnapshot);
  snapshot.notes = [
    ...(snapshot.notes ?? []),
    `A restore of files to an earlier checkpoint was cut off by a reload: ${what}. Re-read them before editing.`,
  ];
  const finish = notRestored.size || unknown.size ? ' Use Restore to here again to finish it.' : '';
  return {
    record: { ...record, snapshot },
    note: `A restore of files to an earlier checkpoint was cut off when Forge was reloaded: ${what}.${finish}`,
  };
}

/** The journal's first edit of `path` after `toSeq` (undone or not): its `before` is where a restore takes it. */
function firstAfter(entries: readonly JournalEntry[], path: string | undefined, toSeq: number) {
  if (path === undefined) return undefined;
  return entries.filter((e) => e.path === path && e.seq > toSeq).sort((a, b) => a.seq - b.seq)[0];
}

/** "a", "a and b", "a, b and c", at most 20 names. */
function listOf(files: readonly string[]): string {
  const shown = files.slice(0, 20);
  const more = files.length - shown.length;
  if (more) return `${shown.join(', ')} and ${more} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? '');
}

/**
 * Cut-off calls whose edit the journal already holds as written (its outcome line landed, the task's next save did
 * not): applied, whatever the saved task still says (e.g. its approval still pending). Without this, the restore
 * asked that approval again with a stale diff, and approving it failed because the file had changed.
 */
async function journaledEdits(
  journal: EditJournal,
  record: TaskRecord,
  known: readonly EffectFact[],
): Promise<EffectFact[]> {
  const snapshot = record.snapshot as AgentSnapshot;
  const settled = new Set(known.map((f) => f.toolCallId));
  const open = danglingToolCalls(snapshot.history).filter((c) => !settled.has(c.id));
  if (!open.length) return [];
  const entries = await journal.entries(record.id).catch(() => []);
  const facts: EffectFact[] = [];
  for (const call of open) {
    const entry = entries.find((e) => e.toolCallId === call.id && !e.undone);
    if (entry) facts.push({ kind: 'edit', toolCallId: call.id, path: entry.path, outcome: 'applied' });
  }
  return facts;
}

/**
 * The approval still pending after a restore, if the user had already answered it (or begun a per-hunk review):
 * what the panel says, since the restored run takes that answer instead of asking again.
 */
async function recalledAnswerNote(record: TaskRecord, answers: AnswerLog | undefined): Promise<string | undefined> {
  const pending = (record.snapshot as AgentSnapshot).pending;
  if (!pending || !answers) return undefined;
  const recalled = await answers.recall(record.id, pending.request.id).catch(() => undefined);
  if (!recalled) return undefined;
  const what = describeRequest(pending.request);
  if (recalled.decision?.kind === 'approve')
    return `You had approved ${what} just before Forge was reloaded: your answer is kept and it goes ahead, without asking again.`;
  if (recalled.decision?.kind === 'reject')
    return `You had rejected ${what} just before Forge was reloaded: your answer is kept${recalled.decision.reason ? ` ("${recalled.decision.reason}")` : ''}.`;
  const rejected = recalled.review?.hunks.filter((h) => h.state === 'rejected').length ?? 0;
  const accepted = recalled.review?.hunks.filter((h) => h.state === 'accepted').length ?? 0;
  return `Your review of ${what} was in progress when Forge was reloaded: your decisions are kept (${accepted} hunk${accepted === 1 ? '' : 's'} accepted, ${rejected} rejected${recalled.review?.proposed !== undefined ? ', your edits to the proposal' : ''}).`;
}

function describeRequest(request: ApprovalRequest): string {
  const preview = request.preview;
  if (preview?.kind === 'edit') return `the edit of ${preview.displayPath ?? preview.path}`;
  if (preview?.kind === 'command') return `the command \`${oneLine(preview.command)}\``;
  return `the ${request.toolName} call`;
}
