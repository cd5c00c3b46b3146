// Recovering what a damaged task file still holds: every intact record up to the damage.
// A tolerant JSON reader parses as far as the text is valid; at the damage it stops and keeps what came before:
// in arrays only the complete elements (the records: messages, transcript items), in objects the complete
// values plus a partly read object or array (the path down to the damaged record). Then the task is rebuilt with
// defaults for whatever was lost after the damage.
import type { TaskRecord } from './task-format';

class Damage extends Error {}

interface Read {
  value: unknown;
  complete: boolean;
}

/** Parses the valid prefix of a JSON text. `complete` is false when the text was damaged (or cut off). */
export function salvageJson(text: string): Read {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (): never => {
    throw new Damage();
  };
  const str = (): string => {
    if (text[i] !== '"') fail();
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail();
    }
  };
  const prim = (): unknown => {
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) return fail();
    // A number cut off by the damage ("12" of "1234") is not trustworthy unless a delimiter follows.
    const end = i + m[0].length;
    if (end >= text.length || !/[\s,\]}]/.test(text[end])) fail();
    i = end;
    return JSON.parse(m[0]);
  };
  const value = (): Read => {
    ws();
    const c = text[i];
    if (c === '{') return obj();
    if (c === '[') return arr();
    if (c === '"') return { value: str(), complete: true };
    return { value: prim(), complete: true };
  };
  const obj = (): Read => {
    const out: Record<string, unknown> = {};
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return { value: out, complete: true };
    }
    for (;;) {
      let key: string;
      try {
        ws();
        key = str();
        ws();
        if (text[i] !== ':') fail();
        i++;
      } catch {
        return { value: out, complete: false };
      }
      let v: Read;
      try {
        v = value();
      } catch {
        return { value: out, complete: false };
      }
      if (v.complete || (v.value !== null && typeof v.value === 'object')) out[key] = v.value;
      if (!v.complete) return { value: out, complete: false };
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return { value: out, complete: true };
      }
      return { value: out, complete: false };
    }
  };
  const arr = (): Read => {
    const out: unknown[] = [];
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return { value: out, complete: true };
    }
    for (;;) {
      let v: Read;
      try {
        v = value();
      } catch {
        return { value: out, complete: false };
      }
      if (!v.complete) return { value: out, complete: false };
      out.push(v.value);
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return { value: out, complete: true };
      }
      return { value: out, complete: false };
    }
  };
  try {
    const r = value();
    ws();
    return r.complete && i < text.length ? { value: r.value, complete: false } : r;
  } catch {
    return { value: undefined, complete: false };
  }
}

interface SalvagedTask {
  record: TaskRecord;
  /** Conversation messages recovered (the model's history). */
  messages: number;
  /** Panel transcript items recovered. */
  transcriptItems: number;
  /** The panel items were lost or cut by the damage: dropped, so the panel rebuilds its view from the messages. */
  rebuilt: boolean;
}

const ROLES = new Set(['user', 'assistant', 'tool']);

/** Rebuilds a task from a damaged file's text, or undefined when not even its conversation survived. */
export function salvageTask(text: string, id: string, now = Date.now()): SalvagedTask | undefined {
  const doc = salvageJson(text).value as { task?: Record<string, unknown> } | undefined;
  const task = doc && typeof doc === 'object' ? doc.task : undefined;
  if (!task || typeof task !== 'object' || (task.id !== undefined && task.id !== id)) return undefined;
  const snap = task.snapshot as Record<string, unknown> | undefined;
  if (!snap || typeof snap !== 'object' || !Array.isArray(snap.history)) return undefined;
  const history = (snap.history as unknown[]).filter(isMessage);
  if (history.length === 0) return undefined;
  const str = (v: unknown, d: string) => (typeof v === 'string' && v ? v : d);
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  const mode = str(snap.mode ?? task.mode, 'agent');
  const firstUser = history.find((m) => m.role === 'user') as { content: string } | undefined;
  const usage = snap.usage && typeof snap.usage === 'object' ? snap.usage : { inputTokens: 0, outputTokens: 0 };
  const snapshot = {
    version: 1,
    taskId: id,
    mode,
    history,
    iterations: num(snap.iterations, 0),
    maxIterations: num(snap.maxIterations, 25),
    allowedForTask: Array.isArray(snap.allowedForTask) ? snap.allowedForTask.filter((t) => typeof t === 'string') : [],
    usage,
    ...(typeof snap.costUsd === 'number' ? { costUsd: snap.costUsd } : {}),
    ...(typeof snap.lastUserMessage === 'string'
      ? { lastUserMessage: snap.lastUserMessage }
      : firstUser
        ? { lastUserMessage: firstUser.content }
        : {}),
    counters: { runs: 0, approvals: 0 },
  };
  const transcript = task.transcript as { items?: unknown[] } | undefined;
  const items =
    Array.isArray(transcript?.items) && itemsWhole(transcript)
      ? transcript!.items.filter(
          (it) => !!it && typeof it === 'object' && typeof (it as { kind?: unknown }).kind === 'string',
        )
      : [];
  const createdAt = num(task.createdAt, now);
  const record: TaskRecord = {
    id,
    title: str(task.title, firstUser ? firstUser.content.slice(0, 80) : 'Recovered task'),
    createdAt,
    updatedAt: num(task.updatedAt, createdAt),
    mode,
    status: 'stopped',
    iterations: snapshot.iterations,
    snapshot,
    transcript: { ...(transcript ?? {}), items },
  };
  return { record, messages: history.length, transcriptItems: items.length, rebuilt: items.length === 0 };
}

/**
 * Whether the items were read to their end: a saved transcript has keys after them (status), and the reader only
 * goes on past a complete value. Items cut by the damage would show the conversation's start and hide the rest.
 */
function itemsWhole(transcript: object): boolean {
  const keys = Object.keys(transcript);
  const at = keys.indexOf('items');
  return at >= 0 && at < keys.length - 1;
}

function isMessage(m: unknown): m is { role: string; content: string } {
  const v = m as { role?: unknown; content?: unknown; toolCallId?: unknown } | null;
  if (!v || typeof v !== 'object' || !ROLES.has(v.role as string) || typeof v.content !== 'string') return false;
  return v.role !== 'tool' || typeof v.toolCallId === 'string';
}
