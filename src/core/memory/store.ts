// A memory store backed by one human-readable JSONL file (.forge/memory.jsonl per workspace, plus a global one).
//
// File format: one JSON object per line, keys in a fixed order (see KEY_ORDER), unknown keys kept. Only `type`
// and `content` are required when a human adds a line; the rest get defaults and are written back in full on
// the next rewrite. Blank lines and lines starting with `//` or `#` are kept as they are.
//
// Corrupt lines (bad JSON, wrong field values) are skipped, reported with their line number, and PRESERVED
// VERBATIM IN PLACE on every rewrite: a user's half-finished edit must never be destroyed by Forge writing
// the file in the background. They are only removed by the user.
import { createHash, randomUUID } from 'node:crypto';
import type { MemoryItem } from './port';
import type { FileStamp, MemoryFileIO } from './file-io';
import { KEY_ORDER, formatIssues, storedLineSchema, type LearningDraft } from './schema';
import { lexicalSimilarity, normalizeContent } from './text';

type MemoryScope = MemoryItem['scope'];

export interface CorruptLine {
  /** 1-based line number in the file as last read. */
  line: number;
  text: string;
  error: string;
}

export interface MemoryStoreOptions {
  now?: () => Date;
  log?: (message: string) => void;
  /** Jaccard similarity of content words at or above which a new learning merges into an existing one. */
  duplicateThreshold?: number;
}

/** What add() accepts: a validated learning, optionally with its creation time. */
export type NewMemory = LearningDraft & { createdAt?: string };

type Entry =
  { kind: 'item'; item: MemoryItem; extra: Record<string, unknown> } | { kind: 'raw'; text: string; corrupt?: string };

const KNOWN_KEYS = new Set<string>([...KEY_ORDER, 'scope']);

export class MemoryStore {
  private entries: Entry[] = [];
  private stamp: FileStamp | undefined;
  private corrupt: CorruptLine[] = [];
  /** Serializes every read-modify-write so concurrent add/touch/remove never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly log: (message: string) => void;
  private readonly threshold: number;

  private constructor(
    private readonly io: MemoryFileIO,
    readonly filePath: string,
    readonly scope: MemoryScope,
    opts: MemoryStoreOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log ?? (() => undefined);
    this.threshold = opts.duplicateThreshold ?? 0.8;
  }

  static async open(
    io: MemoryFileIO,
    filePath: string,
    scope: MemoryScope,
    opts: MemoryStoreOptions = {},
  ): Promise<MemoryStore> {
    const store = new MemoryStore(io, filePath, scope, opts);
    await store.load();
    return store;
  }

  /** The cached items (as of the last load/refresh). Use list() for a fresh view. */
  get items(): readonly MemoryItem[] {
    return this.entries.flatMap((e) => (e.kind === 'item' ? [e.item] : []));
  }

  /** Lines skipped at the last load, with 1-based line numbers. */
  get corruptLines(): readonly CorruptLine[] {
    return this.corrupt;
  }

  /** Reloads when the file changed on disk (mtime or size). Returns true when it reloaded. */
  refresh(): Promise<boolean> {
    return this.serialized(() => this.reloadIfChanged());
  }

  private async reloadIfChanged(): Promise<boolean> {
    const stamp = await this.io.stat(this.filePath);
    if (sameStamp(stamp, this.stamp)) return false;
    await this.load();
    return true;
  }

  /** Fresh copies of all items (picks up external edits first). */
  async list(): Promise<MemoryItem[]> {
    return this.serialized(async () => {
      await this.reloadIfChanged();
      return this.items.map((i) => ({ ...i, tags: [...i.tags] }));
    });
  }

  /** Adds learnings, merging each into an existing near-duplicate instead of piling up. Returns the stored items. */
  async add(memories: readonly NewMemory[]): Promise<MemoryItem[]> {
    if (memories.length === 0) return [];
    return this.mutate((entries) => {
      const result: MemoryItem[] = [];
      for (const m of memories) {
        const existing = this.findDuplicate(entries, m.content);
        const item = existing ? this.merge(existing, m) : this.append(entries, m);
        if (!result.includes(item)) result.push(item);
      }
      return result;
    });
  }

  /** Removes one memory. Returns false when no item has that id. */
  async remove(id: string): Promise<boolean> {
    return this.mutate((entries) => {
      const index = entries.findIndex((e) => e.kind === 'item' && e.item.id === id);
      if (index < 0) return false;
      entries.splice(index, 1);
      return true;
    });
  }

  /** Marks memories as used by a run: lastUsedAt = now, accessCount + 1. Unknown ids are ignored. */
  async touch(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const wanted = new Set(ids);
    const at = this.now().toISOString();
    await this.mutate((entries) => {
      for (const e of entries) {
        if (e.kind === 'item' && wanted.has(e.item.id)) {
          e.item.lastUsedAt = at;
          e.item.accessCount += 1;
        }
      }
    });
  }

  private findDuplicate(entries: Entry[], content: string): MemoryItem | undefined {
    const norm = normalizeContent(content);
    let best: { item: MemoryItem; sim: number } | undefined;
    for (const e of entries) {
      if (e.kind !== 'item') continue;
      if (normalizeContent(e.item.content) === norm) return e.item;
      const sim = lexicalSimilarity(e.item.content, content);
      if (sim >= this.threshold && (!best || sim > best.sim)) best = { item: e.item, sim };
    }
    return best?.item;
  }

  // Seeing the same lesson again is evidence for it: confidence rises (never past 1), the count goes up.
  private merge(item: MemoryItem, m: NewMemory): MemoryItem {
    item.confidence = round3(1 - (1 - item.confidence) * (1 - m.confidence / 2));
    item.accessCount += 1;
    item.lastUsedAt = this.now().toISOString();
    item.tags = uniqueTags([...item.tags, ...m.tags]);
    if (!item.context && m.context) item.context = m.context;
    return item;
  }

  private append(entries: Entry[], m: NewMemory): MemoryItem {
    const item: MemoryItem = {
      id: `m-${randomUUID().slice(0, 8)}`,
      type: m.type,
      content: m.content.trim(),
      context: m.context.trim(),
      confidence: round3(m.confidence),
      tags: uniqueTags(m.tags),
      scope: this.scope,
      createdAt: m.createdAt ?? this.now().toISOString(),
      accessCount: 0,
    };
    entries.push({ kind: 'item', item, extra: {} });
    return item;
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Read-modify-write under the queue and, when the IO has one, under a lock shared with other processes (a second
   * window). The file is re-read under the lock first, so another writer's lines are merged, never overwritten.
   * Pure additions are appended (O_APPEND, whole lines); anything else rewrites the file atomically. Works on a
   * copy, so a failed write leaves memory and disk consistent.
   */
  private mutate<T>(fn: (entries: Entry[]) => T): Promise<T> {
    const locked = this.io.withLock
      ? <R>(f: () => Promise<R>) => this.io.withLock!(this.filePath, f)
      : <R>(f: () => Promise<R>) => f();
    return this.serialized(() =>
      locked(async () => {
        // Never clobber an edit made since we last looked (mtime granularity can hide one: under a lock, always re-read).
        if (this.io.withLock) await this.load();
        else await this.reloadIfChanged();
        const draft = structuredClone(this.entries);
        const kept = serialize(draft);
        const result = fn(draft);
        const before = this.entries.length;
        const appendOnly = !!this.io.append && draft.length > before && serialize(draft.slice(0, before)) === kept;
        if (appendOnly) {
          const text = (await this.io.read(this.filePath)) ?? '';
          const lead = text !== '' && !text.endsWith('\n') ? '\n' : '';
          await this.io.append!(this.filePath, lead + serialize(draft.slice(before)));
        } else {
          await this.io.writeAtomic(this.filePath, serialize(draft));
        }
        this.entries = draft;
        this.stamp = await this.io.stat(this.filePath);
        this.recomputeCorrupt();
        return result;
      }),
    );
  }

  private async load(): Promise<void> {
    const stamp = await this.io.stat(this.filePath);
    const text = (await this.io.read(this.filePath)) ?? '';
    this.entries = parse(text, this.scope, this.now);
    this.stamp = stamp;
    this.recomputeCorrupt();
    for (const c of this.corrupt) {
      this.log(`memory: ${this.filePath}:${c.line}: skipped corrupt line (kept in the file): ${c.error}`);
    }
  }

  private recomputeCorrupt(): void {
    this.corrupt = [];
    this.entries.forEach((e, i) => {
      if (e.kind === 'raw' && e.corrupt) this.corrupt.push({ line: i + 1, text: e.text, error: e.corrupt });
    });
  }
}

function parse(text: string, scope: MemoryScope, now: () => Date): Entry[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const seenIds = new Set<string>();
  return lines.map((line): Entry => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//') || trimmed.startsWith('#')) return { kind: 'raw', text: line };
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      return { kind: 'raw', text: line, corrupt: `invalid JSON (${(err as Error).message})` };
    }
    const parsed = storedLineSchema.safeParse(json);
    if (!parsed.success) return { kind: 'raw', text: line, corrupt: formatIssues(parsed.error) };
    const d = parsed.data;
    // A hand-added line without an id gets one derived from its content, so it is stable across reloads.
    let id = d.id ?? `m-${createHash('sha1').update(d.content).digest('hex').slice(0, 8)}`;
    for (let n = 2; seenIds.has(id); n++) id = `${d.id ?? id}-${n}`;
    seenIds.add(id);
    const item: MemoryItem = {
      id,
      type: d.type,
      content: d.content,
      context: d.context,
      confidence: d.confidence,
      tags: d.tags,
      scope,
      createdAt: d.createdAt ?? now().toISOString(),
      accessCount: d.accessCount,
    };
    if (d.lastUsedAt) item.lastUsedAt = d.lastUsedAt;
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(d)) if (!KNOWN_KEYS.has(k)) extra[k] = v;
    return { kind: 'item', item, extra };
  });
}

function serialize(entries: readonly Entry[]): string {
  const lines = entries.map((e) => (e.kind === 'raw' ? e.text : formatItem(e.item, e.extra)));
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** `{"id": "m-1", "type": "procedural", ...}` — valid JSON on one line, spaced for reading. */
export function formatItem(item: MemoryItem, extra: Record<string, unknown> = {}): string {
  const parts: string[] = [];
  for (const key of KEY_ORDER) {
    const value = item[key];
    if (value !== undefined) parts.push(`${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  for (const [k, v] of Object.entries(extra)) parts.push(`${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{${parts.join(', ')}}`;
}

function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  if (!a || !b) return a === b;
  return a.mtimeMs === b.mtimeMs && a.size === b.size;
}

function uniqueTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];
}

function round3(x: number): number {
  return Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;
}
