// An in-memory TasksIO (the task store's and edit journal's disk) for core tests and benchmarks.
import * as path from 'node:path';
import { InMemoryFileIO } from '../../src/core/memory/file-io';
import type { TasksIO } from '../../src/core/tasks/io';

export class InMemoryTasksIO extends InMemoryFileIO implements TasksIO {
  async list(dir: string): Promise<string[]> {
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    const names = new Set<string>();
    for (const f of this.files.keys()) if (f.startsWith(prefix)) names.add(f.slice(prefix.length).split(path.sep)[0]);
    return [...names];
  }

  async remove(file: string): Promise<void> {
    this.files.delete(file);
  }

  async append(file: string, text: string): Promise<void> {
    const prev = this.files.get(file);
    this.files.set(file, { text: (prev?.text ?? '') + text, mtimeMs: Date.now() });
  }
}

/** A workspace in a Map (path -> text), as the journal's JournalFs sees it. */
export class MapWorkspace {
  readonly files = new Map<string, string>();
  reads = 0;
  writes = 0;
  async read(p: string): Promise<string | null> {
    this.reads++;
    return this.files.get(p) ?? null;
  }
  async write(p: string, content: string): Promise<void> {
    this.writes++;
    this.files.set(p, content);
  }
  async remove(p: string): Promise<void> {
    this.writes++;
    this.files.delete(p);
  }
}
