// The CLI's task records keep images as the extension's do: by sha256 in an image store beside them
// (.forge/tasks/images/), the record holding only the hash; --continue reads the bytes back. Records written
// before this held the bytes inline and still load as they are.
import * as path from 'node:path';
import { withoutImageData } from '../core/model/images';
import type { ChatMessage, ImagePart } from '../core/model/types';
import type { AgentSnapshot } from '../core/tasks/snapshot';
import type { TaskRecord } from '../core/tasks/task-store';
import { ImageStore } from '../node/image-store';

export function cliImageStore(tasksDir: string, log?: (m: string) => void): ImageStore {
  // The task files (tasks/, archive/) name the images in use.
  const referencedIn = [path.join(tasksDir, 'tasks'), path.join(tasksDir, 'archive')];
  return new ImageStore(path.join(tasksDir, 'images'), 16, { referencedIn, ...(log ? { log } : {}) });
}

function historyOf(record: TaskRecord): ChatMessage[] | undefined {
  const h = (record.snapshot as AgentSnapshot | undefined)?.history;
  return Array.isArray(h) ? h : undefined;
}

/** Writes the images of a record with the image store, once each; the record keeps only their hashes. */
export class CliTaskImages {
  private readonly kept = new WeakSet<ImagePart>();

  constructor(readonly store: ImageStore) {}

  async strip(record: TaskRecord): Promise<TaskRecord> {
    const history = historyOf(record);
    if (!history) return record;
    for (const m of history) {
      if (m.role === 'assistant') continue;
      for (const img of m.images ?? []) {
        if (img.data === undefined || this.kept.has(img)) continue;
        await this.store.put({ mediaType: img.mediaType, data: img.data });
        this.kept.add(img);
      }
    }
    return { ...record, snapshot: { ...(record.snapshot as AgentSnapshot), history: withoutImageData(history) } };
  }

  /** Puts the bytes back into a loaded record's images; returns how many are gone. */
  fill(record: TaskRecord): Promise<number> {
    return this.store.fill(historyOf(record));
  }
}
