// Helpers shared by the workspace tools: decoding, binary detection, refusals, result shaping.
import type { PathResolution, ResolvedPath, WorkspaceSandbox } from '../../safety/paths';
import type { ToolResult } from '../types';

const decoder = new TextDecoder('utf-8', { fatal: false });

export function errorResult(content: string, data?: unknown): ToolResult {
  return { content, isError: true, data };
}

/** Bytes isBinary looks at. */
export const BINARY_SAMPLE = 64 * 1024;

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

export function encodeText(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export type Resolved = { ok: true; path: ResolvedPath } | { ok: false; result: ToolResult };

/**
 * Refusals of an edit target that need no diff: path rules for 'write' (secrets, .forgeignore, .git, outside the
 * workspace, untrusted), a folder, a binary file, and (when `mustExist`) a missing file. write_file and apply_diff
 * run it from precheck (before anyone is asked; 'head' reads only the first 64 KB) and again in execute ('whole',
 * returning the bytes), where the file may have changed meanwhile.
 */
export async function checkEditTarget(
  sandbox: WorkspaceSandbox,
  input: string,
  signal: AbortSignal,
  opts: { mustExist: boolean; messages: { missing: (shown: string) => string; dir: (shown: string) => string; binary: (shown: string) => string } },
  read: 'head' | 'whole',
): Promise<{ ok: true; abs: string; shown: string; exists: boolean; bytes?: Uint8Array } | { ok: false; result: ToolResult }> {
  const r = await resolveOrRefuse(sandbox, input, 'write');
  if (!r.ok) return r;
  const { abs } = r.path;
  const shown = sandbox.display(abs);
  const st = await sandbox.fs.stat(abs);
  if (!st) return opts.mustExist ? { ok: false, result: errorResult(opts.messages.missing(shown)) } : { ok: true, abs, shown, exists: false };
  if (st.type === 'dir') return { ok: false, result: errorResult(opts.messages.dir(shown)) };
  const bytes = read === 'head' && sandbox.fs.readFileHead ? (await sandbox.fs.readFileHead(abs, BINARY_SAMPLE, signal)).data : await sandbox.fs.readFile(abs, signal);
  if (isBinary(bytes)) return { ok: false, result: errorResult(opts.messages.binary(shown)) };
  return { ok: true, abs, shown, exists: true, ...(read === 'whole' ? { bytes } : {}) };
}

export async function resolveOrRefuse(sandbox: WorkspaceSandbox, input: string, access: 'read' | 'write' | 'list'): Promise<Resolved> {
  const r: PathResolution = await sandbox.resolve(input, access);
  if (r.ok) return { ok: true, path: r };
  return { ok: false, result: errorResult(`Refused: ${r.reason}`, { refused: r.code }) };
}

/** Dominant line ending of a text ('\n' when none). */
export function dominantEol(text: string): '\n' | '\r\n' {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  return crlf > lf ? '\r\n' : '\n';
}
