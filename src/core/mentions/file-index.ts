// The workspace's files and folders for the @-mention picker: built once (the host lists the workspace), kept up
// to date by file events, searched by fuzzyScore. Only paths the caller admits are added (the host filters
// .forgeignore and secrets before), so a search never offers a file Forge would refuse to read.
import { fuzzyScore, normalizeQuery } from './fuzzy';

export interface IndexHit {
  /** Workspace-relative, '/'-separated. */
  path: string;
  kind: 'file' | 'folder';
  score: number;
}

interface Entry {
  path: string;
  lower: string;
}

export class FileIndex {
  private readonly files = new Map<string, Entry>();
  /** Folder -> how many indexed files are under it (a folder with none left disappears). */
  private readonly folders = new Map<string, { entry: Entry; count: number }>();

  get size(): number {
    return this.files.size;
  }

  get folderCount(): number {
    return this.folders.size;
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  clear(): void {
    this.files.clear();
    this.folders.clear();
  }

  add(path: string): void {
    if (!path || this.files.has(path)) return;
    this.files.set(path, { path, lower: path.toLowerCase() });
    for (const dir of parents(path)) {
      const f = this.folders.get(dir);
      if (f) f.count++;
      else this.folders.set(dir, { entry: { path: dir, lower: dir.toLowerCase() }, count: 1 });
    }
  }

  /** Removes a file, or every file under a folder (a deleted folder reports only itself). */
  remove(path: string): void {
    if (this.files.delete(path)) {
      this.dropParents(path);
      return;
    }
    const prefix = `${path}/`;
    for (const p of [...this.files.keys()]) {
      if (p.startsWith(prefix)) {
        this.files.delete(p);
        this.dropParents(p);
      }
    }
  }

  /** The best `limit` files and folders for `query` (an empty query: the shortest paths, files first). */
  search(query: string, limit = 50): IndexHit[] {
    const q = normalizeQuery(query);
    const wantFolder = q.endsWith('/');
    const needle = wantFolder ? q.slice(0, -1) : q;
    const best: IndexHit[] = [];
    let floor = -Infinity;
    const consider = (e: Entry, kind: IndexHit['kind']) => {
      const s = fuzzyScore(needle, e.lower, e.path);
      if (s === undefined) return;
      // Files rank a little above folders of the same score; a query ending in "/" asks for folders.
      const score = s + (kind === 'file' ? (wantFolder ? -30 : 1) : wantFolder ? 30 : 0);
      if (best.length >= limit && score <= floor) return;
      best.push({ path: e.path, kind, score });
      if (best.length > limit * 4) {
        best.sort(byScore);
        best.length = limit;
        floor = best[best.length - 1].score;
      }
    };
    for (const e of this.files.values()) consider(e, 'file');
    for (const f of this.folders.values()) consider(f.entry, 'folder');
    best.sort(byScore);
    return best.slice(0, limit);
  }

  private dropParents(path: string): void {
    for (const dir of parents(path)) {
      const f = this.folders.get(dir);
      if (f && --f.count <= 0) this.folders.delete(dir);
    }
  }
}

function byScore(a: IndexHit, b: IndexHit): number {
  return b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1);
}

/** "a/b/c.ts" -> ["a", "a/b"]. */
function parents(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}
