// A file system that fails on demand, for the durability tests: a full disk (ENOSPC), a read-only folder (EROFS),
// and torn writes (part of the text lands, then the write fails, as on power loss or a full disk mid-write).
import { promises as fsp } from 'node:fs';
import { writeSynced } from '../../../src/node/memory-file-io';
import { NodeTasksIO } from '../../../src/node/tasks-io';

export type Fault = 'none' | 'enospc' | 'erofs' | 'torn';

export function fsError(code: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EROFS: 'read-only file system',
    EIO: 'i/o error',
  };
  return Object.assign(new Error(`${code}: ${messages[code] ?? code}`), { code });
}

export class FaultyIO extends NodeTasksIO {
  fault: Fault = 'none';
  /** Only paths containing this fail (default: all). */
  only?: string;
  failures = 0;

  constructor() {
    super({
      write: async (file, text, flag) => {
        if (this.hits(file)) {
          this.failures++;
          if (this.fault === 'torn') {
            await writeSynced(file, text.slice(0, Math.floor(text.length / 2)), flag);
            throw fsError('EIO');
          }
          if (this.fault === 'enospc') {
            // A full disk takes the first bytes and then refuses the rest.
            await writeSynced(file, text.slice(0, 7), flag);
            throw fsError('ENOSPC');
          }
          throw fsError('EROFS');
        }
        await writeSynced(file, text, flag);
      },
      rename: async (a, b) => {
        if (this.fault === 'erofs' && this.hits(b)) throw fsError('EROFS');
        await fsp.rename(a, b);
      },
    });
  }

  override async remove(file: string): Promise<void> {
    if (this.fault === 'erofs' && this.hits(file)) throw fsError('EROFS');
    return super.remove(file);
  }

  override async move(from: string, to: string): Promise<void> {
    if (this.fault === 'erofs' && this.hits(from)) throw fsError('EROFS');
    return super.move(from, to);
  }

  private hits(file: string): boolean {
    return this.fault !== 'none' && (this.only === undefined || file.includes(this.only));
  }
}
