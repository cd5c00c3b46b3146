// Reading a file that somebody else may have planted (a repository's rules, an MCP config, an env file) without
// letting its type hurt the host: opened without blocking (a FIFO opens at once instead of waiting for a writer),
// without following a symlink in the last component, and judged by the opened handle's own type before one byte
// is read, so a FIFO, device or socket swapped in after a stat is refused rather than read or waited on.
import { constants, promises as fsp } from 'node:fs';

/** Open flags: read-only, non-blocking, no symlink as the last component (where the platform has them). */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** The error a non-regular file (FIFO, device, socket, folder) is refused with. */
class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is a ${kind}, not a regular file`);
  }
}

function kindOf(s: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (s.isDirectory()) return 'folder';
  if (s.isFIFO()) return 'FIFO (named pipe)';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'device';
  if (s.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

/**
 * The first `maxBytes` bytes of the regular file at `p`; `truncated` when it holds more, `size` its size when
 * opened. Rejects with NotRegularFileError for anything but a regular file, ELOOP for a symlink.
 */
export async function readRegularFile(
  p: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ data: Uint8Array; truncated: boolean; size: number }> {
  signal?.throwIfAborted();
  const handle = await fsp.open(p, FLAGS);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotRegularFileError(p, kindOf(st));
    // One byte more than asked tells "exactly maxBytes" from "more" (the file may grow between stat and read).
    const want = Math.max(0, Math.min(maxBytes, st.size)) + 1;
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buf, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return {
      data: Uint8Array.prototype.slice.call(buf, 0, Math.min(got, maxBytes)),
      truncated: got > maxBytes,
      size: st.size,
    };
  } finally {
    await handle.close().catch(() => undefined);
  }
}
