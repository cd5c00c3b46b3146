// Reading one regular file through the WorkspaceFs port, its type checked before it is opened: a FIFO named
// AGENTS.md must not hang the host, a device must not be read. Hosts with readRegularFile also judge the opened
// handle (no race between the check and the open); others stat, then read.
import type { WorkspaceFs } from '../workspace/types';

type RegularRead =
  | { ok: true; data: Uint8Array; truncated: boolean; size: number }
  | { ok: false; code: 'missing' | 'not-a-file'; kind: string };

function kindOf(type: string): string {
  return type === 'dir' ? 'folder' : type === 'symlink' ? 'symbolic link that leads nowhere' : 'FIFO, device or socket';
}

/** The first `maxBytes` bytes of `abs` when it is a regular file. Other errors (permissions, I/O) reject. */
export async function readRegular(
  fs: WorkspaceFs,
  abs: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<RegularRead> {
  const st = await fs.stat(abs);
  if (!st) return { ok: false, code: 'missing', kind: 'missing' };
  if (st.type !== 'file') return { ok: false, code: 'not-a-file', kind: kindOf(st.type) };
  if (fs.readRegularFile) {
    try {
      return { ok: true, ...(await fs.readRegularFile(abs, maxBytes, signal)) };
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      if (code === 'ENOENT') return { ok: false, code: 'missing', kind: 'missing' };
      if (code === 'ENOTREG')
        return { ok: false, code: 'not-a-file', kind: String((err as { kind?: unknown }).kind ?? 'special file') };
      if (code === 'ELOOP') return { ok: false, code: 'not-a-file', kind: 'symbolic link' };
      throw err;
    }
  }
  if (fs.readFileHead) return { ok: true, ...(await fs.readFileHead(abs, maxBytes, signal)), size: st.size };
  const data = await fs.readFile(abs, signal);
  return { ok: true, data: data.subarray(0, maxBytes), truncated: data.byteLength > maxBytes, size: data.byteLength };
}
