// search_files' JS backend runs the user's regular expression in a worker thread that can be killed (core's
// RegexScan port, src/core/tools/regex-scan.ts; the extension and the CLI pass workerRegexScan).
//
// Why a worker and not a linear-time engine: the tool promises JavaScript regex syntax (lookarounds,
// backreferences, \p{...}), which RE2-style engines (re2js, re2-wasm) refuse or read differently, and a pure-JS
// RE2 port is many times slower than V8's irregexp on ordinary patterns. A worker keeps V8's engine and its exact
// semantics; Worker.terminate() ends a catastrophic backtrack ((a+)+$ on a long line) at once, which nothing on the
// extension host's own thread can do. Decoding and splitting lines move off the host's thread with it.
//
// The worker's code is a string evaluated with `eval: true`: it ships inside dist/extension.js (no extra entry point
// or file to find next to the bundle) and runs the same under tsx in tests and benchmarks.
import { Worker } from 'node:worker_threads';
import { RegexStuckError, type FileMatches, type RegexScan, type RegexScanOptions } from '../core/tools/regex-scan';

/** Characters of a matched or context line sent back (the tool prints 300; ripgrep's --max-columns is 1000). */
const WORKER_LINE_CHARS = 1000;

const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const cut = workerData.lineChars;
// The host bumps this when a search ends: files still queued for an older search are skipped unread.
const generation = new Int32Array(workerData.generation);
const decoder = new TextDecoder('utf-8', { fatal: false });
const clip = (s) => (s.length > cut ? s.slice(0, cut) : s);
let regex = null;
let prefilter = null;
let context = 0;
let max = 0;
parentPort.on('message', (msg) => {
  if (msg.type === 'init') {
    regex = new RegExp(msg.source, msg.flags);
    prefilter = msg.prefilterFlags === null ? null : new RegExp(msg.source, msg.prefilterFlags);
    context = msg.context;
    max = msg.max;
    return;
  }
  if (msg.type === 'ping') return parentPort.postMessage({ type: 'pong' });
  if (msg.gen !== Atomics.load(generation, 0)) return;
  let text = decoder.decode(new Uint8Array(msg.buffer, msg.offset, msg.length));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (prefilter !== null) {
    prefilter.lastIndex = 0;
    if (!prefilter.test(text)) return parentPort.postMessage({ id: msg.id, matches: [], count: 0 });
  }
  const lines = text.split(/\r?\n/);
  const matches = [];
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    regex.lastIndex = 0;
    if (!regex.test(lines[i])) continue;
    if (++count <= max) {
      matches.push({
        line: i + 1,
        text: clip(lines[i]),
        before: lines.slice(Math.max(0, i - context), i).map(clip),
        after: lines.slice(i + 1, i + 1 + context).map(clip),
      });
    }
  }
  parentPort.postMessage({ id: msg.id, matches, count });
});
`;

interface Pending {
  id: number;
  file: string;
  resolve: (r: FileMatches) => void;
  reject: (e: unknown) => void;
}

let live = 0;
/** Scan ids are unique across searches, so a reused worker's late answers to an earlier search are told apart. */
let nextScanId = 1;

/**
 * A worker whose search ended, kept a while for the next search (starting one costs 40-60 ms). It is reused only
 * once it has answered a ping, i.e. finished any file it was still on: a stuck one is never handed on.
 */
let idle: { worker: Worker; timer: ReturnType<typeof setTimeout>; clean: boolean; gen: Int32Array } | undefined;
const IDLE_MS = 30_000;

function takeWorker(): { worker: Worker; gen: Int32Array } {
  if (idle) {
    const { worker, timer, clean, gen } = idle;
    idle = undefined;
    clearTimeout(timer);
    if (clean) return { worker, gen };
    void worker.terminate().catch(() => undefined);
  }
  const gen = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { lineChars: WORKER_LINE_CHARS, generation: gen.buffer },
    // Files are at most a few MB; a capped heap keeps a runaway pattern from taking the host's memory.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  live++;
  worker.once('exit', () => live--);
  worker.unref();
  return { worker, gen };
}

function parkWorker(worker: Worker, gen: Int32Array): void {
  if (idle) {
    void worker.terminate().catch(() => undefined);
    return;
  }
  Atomics.add(gen, 0, 1); // queued files of the ended search are skipped
  const timer = setTimeout(() => {
    if (idle?.worker === worker) idle = undefined;
    void worker.terminate().catch(() => undefined);
  }, IDLE_MS);
  timer.unref?.();
  const parked = { worker, timer, clean: false, gen };
  idle = parked;
  const onPong = (m: { type?: string }) => {
    if (m?.type !== 'pong') return;
    parked.clean = true;
    worker.off('message', onPong);
  };
  worker.on('message', onPong);
  worker.postMessage({ type: 'ping' });
}

/**
 * One worker for one search: files go in (their bytes transferred, not copied), matches come back in order.
 * The worker is terminated when the search ends, when its signal aborts (Stop, the tool's time limit), or when one
 * file runs past `stuckMs`; every pending scan then rejects.
 */
export class RegexScanner implements RegexScan {
  /** Workers alive in this process, the idle one included (a stuck or stopped search's worker is never kept). */
  static get live(): number {
    return live;
  }

  /** Ends the idle worker now (tests, shutdown). */
  static async dispose(): Promise<void> {
    const w = idle;
    idle = undefined;
    if (w) {
      clearTimeout(w.timer);
      await w.worker.terminate().catch(() => undefined);
    }
  }

  private readonly worker: Worker;
  private readonly gen: Int32Array;
  private readonly pending: Pending[] = [];
  private readonly firstId = nextScanId;
  private nextId = nextScanId;
  private closed = false;
  private failure: unknown;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = () => this.fail(this.opts.signal.reason ?? new Error('aborted'));
  private readonly onMessage = (m: { id: number; matches: FileMatches['matches']; count: number }) => {
    // A pong or a late answer for an earlier search on this worker is not ours.
    if (typeof m?.id !== 'number' || m.id < this.firstId) return;
    const p = this.pending.shift();
    if (!p || p.id !== m.id) return this.fail(new Error('regex worker answered out of order'));
    this.arm();
    p.resolve({ matches: m.matches, count: m.count });
  };
  private readonly onError = (e: unknown) => this.fail(e);
  private readonly onExit = () => this.fail(new Error('regex worker exited'));

  constructor(private readonly opts: RegexScanOptions) {
    ({ worker: this.worker, gen: this.gen } = takeWorker());
    this.worker.on('message', this.onMessage);
    this.worker.on('error', this.onError);
    this.worker.on('exit', this.onExit);
    this.worker.postMessage({
      type: 'init',
      source: opts.source,
      flags: opts.flags,
      prefilterFlags: opts.prefilterFlags,
      context: opts.context,
      max: opts.max,
    });
    opts.signal.addEventListener('abort', this.onAbort, { once: true });
    if (opts.signal.aborted) this.onAbort();
  }

  /** Matches in one file's bytes (a copy goes to the worker; the caller's bytes are left alone). */
  scan(file: string, bytes: Uint8Array): Promise<FileMatches> {
    if (this.closed) return Promise.reject(this.failure);
    return new Promise<FileMatches>((resolve, reject) => {
      const id = this.nextId++;
      nextScanId = this.nextId;
      this.pending.push({ id, file, resolve, reject });
      // The bytes are copied (a memcpy, well under a millisecond for the largest file searched) and the copy is
      // transferred: the caller's buffer may be shared (Node's small-buffer pool, a file system's cache).
      const buffer = new Uint8Array(bytes).buffer;
      this.worker.postMessage(
        { type: 'scan', gen: Atomics.load(this.gen, 0), id, buffer, offset: 0, length: bytes.byteLength },
        [buffer],
      );
      if (this.pending.length === 1) this.arm();
    });
  }

  /** Ends the search: the worker is kept for the next one (see parkWorker); pending scans reject. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = new Error('regex worker closed');
    this.detach();
    for (const p of this.pending.splice(0)) p.reject(this.failure);
    parkWorker(this.worker, this.gen);
  }

  private detach(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.opts.signal.removeEventListener('abort', this.onAbort);
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('exit', this.onExit);
  }

  /** The watchdog times the oldest pending file (the one the worker is on). */
  private arm(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = undefined;
    const head = this.pending[0];
    if (!head || this.closed) return;
    const started = Date.now();
    this.watchdog = setTimeout(
      () => this.fail(new RegexStuckError(head.file, Date.now() - started)),
      this.opts.stuckMs,
    );
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = err;
    this.detach();
    void this.worker.terminate().catch(() => undefined);
    for (const p of this.pending.splice(0)) p.reject(err);
  }
}

/** The RegexScanFactory the extension and the CLI give search_files. */
export const workerRegexScan = (opts: RegexScanOptions): RegexScan => new RegexScanner(opts);
