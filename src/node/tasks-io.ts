// TasksIO on node:fs: the memory store's atomic write (temp file + fsync + rename) and the few calls the task
// store, the edit journal, the command log and the run reports add.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { TasksIO } from '../core/tasks/io';
import { NodeMemoryFileIO } from './memory-file-io';

export class NodeTasksIO extends NodeMemoryFileIO implements TasksIO {
  async list(dir: string): Promise<string[]> {
    try {
      return await fsp.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return [];
      throw err;
    }
  }

  async remove(file: string): Promise<void> {
    await fsp.rm(file, { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    await fsp.mkdir(path.dirname(to), { recursive: true });
    await fsp.rename(from, to);
  }
}
