// Helpers shared by the workspace tools: decoding, binary detection, refusals, result shaping.
import type { PathResolution, ResolvedPath, WorkspaceSandbox } from '../../safety/paths';
import { controlPlaneChange, uncheckedCall } from '../../safety/sensitive';
import type { ApprovalPreview, PreparedCall, SensitiveCall, ToolContext, ToolResult } from '../types';

const decoder = new TextDecoder('utf-8', { fatal: false });

export function errorResult(content: string, data?: unknown): ToolResult {
  return { content, isError: true, data };
}

/** Longest stretch of synchronous work a tool does before it lets the extension host's event loop run. */
const SLICE_MS = 8;

/** Lets the event loop run (timers, I/O, the UI's messages) before the caller continues. */
function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );
}

/**
 * Keeps long loops from blocking the host: call `tick()` often (it is cheap); once SLICE_MS of work has run since
 * the last pause it yields to the event loop, then rejects if `signal` was aborted meanwhile.
 */
export class Pacer {
  private last = performance.now();
  private n = 0;
  constructor(
    private readonly signal?: AbortSignal,
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** True when a pause is due (checked on the clock every 64 calls). */
  due(): boolean {
    if ((++this.n & 63) !== 0) return false;
    return performance.now() - this.last >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await yieldToLoop();
    this.last = performance.now();
    this.signal?.throwIfAborted();
  }

  /** Pauses only when a slice of work has run since the last pause (checked on the clock now). */
  async pauseIfSpent(): Promise<void> {
    if (performance.now() - this.last >= this.sliceMs) await this.pause();
  }

  /** `if (pacer.due()) await pacer.pause()`, for loops that do not mind an await per call. */
  async tick(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** Bytes of a file decoded per slice (TextDecoder runs at several hundred MB/s: about 1-2 ms per slice). */
const DECODE_CHUNK = 1024 * 1024;

/**
 * decodeText for big files: decodes a slice at a time with a pause between, so no decode blocks the host for long.
 * `keepBom`: for a part of a file that does not start at its beginning (a U+FEFF there is content, not a BOM).
 * Slices end just after an ASCII byte (always a character boundary in UTF-8) and are decoded on their own: a
 * streaming decode returns two-byte strings even for ASCII, which makes the joined text twice as big and every search
 * in it slower; slices decoded whole keep ASCII text one byte per character.
 */
export async function decodeTextPaced(bytes: Uint8Array, signal?: AbortSignal, keepBom = false): Promise<string> {
  if (bytes.byteLength <= DECODE_CHUNK && !keepBom) return decodeText(bytes);
  const first = new TextDecoder('utf-8', { fatal: false, ignoreBOM: keepBom });
  const rest = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  const parts: string[] = [];
  const pacer = new Pacer(signal);
  for (let at = 0; at < bytes.byteLength;) {
    let end = Math.min(bytes.byteLength, at + DECODE_CHUNK);
    if (end < bytes.byteLength) {
      let cut = end;
      while (cut > at && bytes[cut - 1]! >= 0x80) cut--;
      if (cut === at) return decodeStreaming(bytes, signal, keepBom); // a megabyte without one ASCII byte
      end = cut;
    }
    parts.push((at === 0 ? first : rest).decode(bytes.subarray(at, end)));
    at = end;
    if (bytes.byteLength > DECODE_CHUNK) await pacer.pause();
  }
  const text = parts.join('');
  return !keepBom && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

async function decodeStreaming(bytes: Uint8Array, signal: AbortSignal | undefined, keepBom: boolean): Promise<string> {
  const streaming = new TextDecoder('utf-8', { fatal: false, ignoreBOM: keepBom });
  const parts: string[] = [];
  const pacer = new Pacer(signal);
  for (let at = 0; at < bytes.byteLength; at += DECODE_CHUNK) {
    const end = Math.min(bytes.byteLength, at + DECODE_CHUNK);
    parts.push(streaming.decode(bytes.subarray(at, end), { stream: end < bytes.byteLength }));
    await pacer.pause();
  }
  const text = parts.join('');
  return !keepBom && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Largest file write_file and apply_diff load to edit (the original is held, diffed and shown in a diff editor). */
export const EDIT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Bytes isBinary looks at. */
const BINARY_SAMPLE = 64 * 1024;

/** Binary when a NUL byte appears early or too much of the sample is not valid UTF-8. */
export function isBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, BINARY_SAMPLE);
  if (sample.indexOf(0) >= 0) return true;
  if (sample.length === 0) return false;
  // Cut a possibly split multi-byte character at the end before judging.
  let end = sample.length;
  for (let k = 1; k <= 3 && end - k >= 0; k++) {
    const b = sample[end - k]!;
    if ((b & 0xc0) === 0xc0) {
      end -= k;
      break;
    }
    if ((b & 0x80) === 0) break;
  }
  const text = decoder.decode(sample.subarray(0, end));
  let bad = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) bad++;
  return bad / Math.max(1, text.length) > 0.05;
}

export function decodeText(bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

type Resolved = { ok: true; path: ResolvedPath } | { ok: false; result: ToolResult };

/**
 * Refusals of an edit target that need no diff: path rules for 'write' (secrets, .forgeignore, .git, outside the
 * workspace, untrusted), a folder, a binary file, and (when `mustExist`) a missing file. write_file and apply_diff
 * run it from prepare (before anyone is asked; 'head' reads only the first 64 KB) and again in execute ('whole',
 * returning the bytes), where the file may have changed meanwhile.
 */
export async function checkEditTarget(
  sandbox: WorkspaceSandbox,
  input: string,
  signal: AbortSignal,
  opts: {
    mustExist: boolean;
    messages: { missing: (shown: string) => string; dir: (shown: string) => string; binary: (shown: string) => string };
  },
  read: 'head' | 'whole',
  maxBytes: number = EDIT_MAX_FILE_BYTES,
): Promise<
  { ok: true; abs: string; shown: string; exists: boolean; bytes?: Uint8Array } | { ok: false; result: ToolResult }
> {
  const r = await resolveOrRefuse(sandbox, input, 'write');
  if (!r.ok) return r;
  const { abs } = r.path;
  const shown = sandbox.display(abs);
  const st = await sandbox.fs.stat(abs);
  if (!st)
    return opts.mustExist
      ? { ok: false, result: errorResult(opts.messages.missing(shown)) }
      : { ok: true, abs, shown, exists: false };
  if (st.type === 'dir') return { ok: false, result: errorResult(opts.messages.dir(shown)) };
  if (st.size > maxBytes) {
    return {
      ok: false,
      result: errorResult(
        `${shown} is ${formatBytes(st.size)}, over the ${formatBytes(maxBytes)} cap on files Forge edits. Do not rewrite it whole: ` +
          'read the part you need with read_file startLine/endLine and change it with a command (for example sed), or ask the user.',
        { errorClass: 'tool', tooLarge: true, size: st.size, capBytes: maxBytes },
      ),
    };
  }
  const bytes =
    read === 'head' && sandbox.fs.readFileHead
      ? (await sandbox.fs.readFileHead(abs, BINARY_SAMPLE, signal)).data
      : await sandbox.fs.readFile(abs, signal);
  if (isBinary(bytes)) return { ok: false, result: errorResult(opts.messages.binary(shown)) };
  return { ok: true, abs, shown, exists: true, ...(read === 'whole' ? { bytes } : {}) };
}

export async function resolveOrRefuse(
  sandbox: WorkspaceSandbox,
  input: string,
  access: 'read' | 'write' | 'list',
): Promise<Resolved> {
  const r: PathResolution = await sandbox.resolve(input, access);
  if (r.ok) return { ok: true, path: r };
  return { ok: false, result: errorResult(`Refused: ${r.reason}`, { refused: r.code }) };
}

/** Dominant line ending of a text ('\n' when none). */
export function dominantEol(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/**
 * Whether a file the agent would change is control plane, as addressed or where it really lives (a symbolic link
 * inside the workspace to .vscode/settings.json is that file). undefined when the path is not usable at all
 * (prepareEdit refuses it).
 */
export async function controlPlaneTarget(sandbox: WorkspaceSandbox, input: string): Promise<SensitiveCall | undefined> {
  const r = await sandbox.resolve(input, 'write');
  if (!r.ok) return undefined;
  const real = r.real !== r.abs ? await sandbox.canonical(r) : r;
  return controlPlaneChange(sandbox.display(r.abs), [r.rel, real.rel]);
}

/**
 * Tool.prepare of write_file and apply_diff: the target's refusals first (checkEditTarget 'head', no diff computed;
 * a check that throws leaves them to execute()), then whether it is control plane (a check that throws counts as
 * control plane). The preview, the costly diff, is built only if the policy asks.
 */
export async function prepareEdit(
  sandbox: WorkspaceSandbox,
  path: string,
  ctx: ToolContext,
  target: Parameters<typeof checkEditTarget>[3],
  preview: (signal: AbortSignal) => Promise<ApprovalPreview>,
): Promise<PreparedCall> {
  try {
    const t = await checkEditTarget(sandbox, path, ctx.signal, target, 'head');
    if (!t.ok) return { kind: 'refuse', result: t.result };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
  }
  let sensitive: SensitiveCall | undefined;
  try {
    sensitive = await controlPlaneTarget(sandbox, path);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    sensitive = uncheckedCall(path, err);
  }
  return { kind: 'ready', preview, ...(sensitive ? { sensitive } : {}) };
}
