// Images of deleted tasks go: the image store keeps an image while a task file in the history (or its archive)
// names its sha256, and removes it once none does, after a grace period that protects images whose task is not
// saved yet (and ones just used again). Run against the real TaskStore on disk.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { withoutImageData } from '../../../src/core/model/images';
import type { ImagePart } from '../../../src/core/model/types';
import { TaskStore, type TaskRecord } from '../../../src/core/tasks/task-store';
import { ImageStore } from '../../../src/node/image-store';
import { NodeTasksIO } from '../../../src/node/tasks-io';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** A distinct PNG per n (bytes after IEND change the hash, not the image). */
const png = (n: number) => Buffer.concat([PNG, Buffer.from([n])]).toString('base64');

function task(id: string, updatedAt: number, images: ImagePart[]): TaskRecord {
  const history = withoutImageData([{ role: 'user', content: `look at ${id}`, images }]);
  return { id, title: id, createdAt: updatedAt, updatedAt, mode: 'agent', status: 'done', snapshot: { history } };
}

describe('node/image-store: images no task names are collected', () => {
  let dir: string;
  let history: string;
  let imagesDir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(tmpdir(), 'forge-image-gc-'));
    history = path.join(dir, 'history');
    imagesDir = path.join(dir, 'images');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Two hours ago: past the grace period. */
  const age = (store: ImageStore, ...parts: ImagePart[]) => {
    const then = new Date(Date.now() - 2 * 3_600_000);
    for (const p of parts) fs.utimesSync(store.fileOf(p), then, then);
  };
  const exists = (store: ImageStore, p: ImagePart) => fs.existsSync(store.fileOf(p));

  it('keeps what a task names, removes what none does, and a deleted task takes its images along', async () => {
    const store = new ImageStore(imagesDir, 16, { referencedIn: [history] });
    const [a, b, shared, orphan] = await Promise.all(
      [1, 2, 3, 4].map((n) => store.put({ mediaType: 'image/png', data: png(n) })),
    );
    const tasks = await TaskStore.open(history, { io: new NodeTasksIO() });
    await tasks.save(task('t1', 1000, [a!, shared!]));
    await tasks.save(task('t2', 2000, [b!, shared!]));
    await tasks.flush();
    age(store, a!, b!, shared!, orphan!);
    // A reload: nothing of this process's cache protects them.
    const fresh = new ImageStore(imagesDir, 16, { referencedIn: [history] });
    const first = await fresh.collectGarbage();
    assert.deepEqual([first.removed, first.kept], [1, 3]);
    assert.equal(exists(fresh, orphan!), false);
    await tasks.remove('t1');
    const second = await fresh.collectGarbage();
    assert.equal(second.removed, 1);
    assert.equal(exists(fresh, a!), false, "t1's own image went with it");
    assert.ok(exists(fresh, shared!), 't2 still names the shared image');
    assert.ok(exists(fresh, b!));
    await tasks.remove('t2');
    assert.equal((await fresh.collectGarbage()).removed, 2);
    assert.deepEqual(
      fs.readdirSync(imagesDir).flatMap((d) => fs.readdirSync(path.join(imagesDir, d))),
      [],
    );
  });

  it('an archived task (past the history limit) keeps its images', async () => {
    const store = new ImageStore(imagesDir, 0, { referencedIn: [history] });
    const [a, b] = await Promise.all([5, 6].map((n) => store.put({ mediaType: 'image/png', data: png(n) })));
    const tasks = await TaskStore.open(history, { io: new NodeTasksIO(), maxTasks: 1 });
    await tasks.save(task('old', 1000, [a!]));
    await tasks.save(task('new', 2000, [b!]));
    await tasks.flush();
    assert.deepEqual(
      (await tasks.list()).map((t) => t.id),
      ['new'],
      'the old task was archived',
    );
    age(store, a!, b!);
    assert.equal((await store.collectGarbage()).removed, 0);
    assert.ok(exists(store, a!));
  });

  it('a fresh image, or an old one just used again, is kept though no task names it yet', async () => {
    const store = new ImageStore(imagesDir, 0, { referencedIn: [history] });
    fs.mkdirSync(history, { recursive: true });
    const fresh = await store.put({ mediaType: 'image/png', data: png(7) });
    const reused = await store.put({ mediaType: 'image/png', data: png(8) });
    age(store, reused);
    await store.put({ mediaType: 'image/png', data: png(8) });
    const r = await store.collectGarbage();
    assert.deepEqual([r.removed, r.kept], [0, 2]);
    assert.ok(exists(store, fresh) && exists(store, reused));
  });

  it('without the history folders to read, or when they cannot be read, nothing is deleted', async () => {
    const blind = new ImageStore(imagesDir, 0);
    const p = await blind.put({ mediaType: 'image/png', data: png(9) });
    age(blind, p);
    assert.equal((await blind.collectGarbage()).removed, 0);
    // The history "folder" is a file: listing it fails, and the collection with it.
    fs.writeFileSync(history, 'not a folder');
    const broken = new ImageStore(imagesDir, 0, { referencedIn: [history] });
    await assert.rejects(broken.collectGarbage());
    assert.ok(exists(broken, p));
  });
});
