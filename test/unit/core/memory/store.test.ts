import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryFileIO, MemoryStore, type NewMemory } from '../../../../src/core/memory';
import { NodeMemoryFileIO } from '../../../../src/node/memory-file-io';
import { collectLog } from './helpers';

const FILE = '/ws/.forge/memory.jsonl';
const fixedNow = () => new Date('2025-01-10T00:00:00.000Z');

function learning(content: string, extra: Partial<NewMemory> = {}): NewMemory {
  return { type: 'procedural', content, context: '', confidence: 0.6, tags: [], ...extra };
}

describe('memory/MemoryStore', () => {
  it('writes one JSON object per line with a stable key order and reloads it', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace', { now: fixedNow });
    await store.add([learning('Use pnpm for tests', { tags: ['PNPM', 'tests'], context: 'running tests' })]);
    const text = (await io.read(FILE))!;
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 1);
    const obj = JSON.parse(lines[0]);
    assert.deepEqual(Object.keys(obj), [
      'id',
      'type',
      'content',
      'context',
      'tags',
      'confidence',
      'accessCount',
      'createdAt',
    ]);
    assert.deepEqual(obj.tags, ['pnpm', 'tests']);
    const again = await MemoryStore.open(io, FILE, 'workspace');
    assert.deepEqual(await again.list(), await store.list());
    assert.equal((await again.list())[0].scope, 'workspace');
  });

  it('keeps the old file intact when the process dies between temp write and rename (node fs)', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-mem-'));
    try {
      const file = path.join(dir, '.forge', 'memory.jsonl');
      const good = await MemoryStore.open(new NodeMemoryFileIO(), file, 'workspace');
      await good.add([learning('Use pnpm for tests')]);
      const before = await fsp.readFile(file, 'utf8');

      const crashing = new NodeMemoryFileIO({
        rename: async () => {
          throw Object.assign(new Error('crash'), { code: 'EIO' });
        },
      });
      const store = await MemoryStore.open(crashing, file, 'workspace');
      // A rewrite (additions are appended; removals rewrite the file through temp + rename).
      await assert.rejects(store.remove(store.items[0].id), /crash/);
      assert.equal(await fsp.readFile(file, 'utf8'), before);
      assert.equal(store.items.length, 1, 'in-memory state not advanced past the failed write');
      assert.deepEqual(await fsp.readdir(path.dirname(file)), ['memory.jsonl'], 'temp file and lock cleaned up');
      // the store still works afterwards
      await good.add([learning('Another lesson about docker compose')]);
      assert.equal((await good.list()).length, 2);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the old content when the fake IO crashes before rename', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace');
    await store.add([learning('First lesson about yarn')]);
    const before = await io.read(FILE);
    io.failNextRename = true;
    await assert.rejects(store.add([learning('Second lesson about make')]));
    assert.equal(await io.read(FILE), before);
    assert.equal((await store.list()).length, 1);
  });

  it('skips and reports corrupt lines, loads the others, and preserves them verbatim on rewrite', async () => {
    const io = new InMemoryFileIO();
    const good1 = '{"id": "a", "type": "procedural", "content": "Run tests with pnpm"}';
    const broken = '{"id": "b", "type": "procedural", "content": "half-edited';
    const badValue = '{"id": "c", "type": "procedural", "content": "x", "confidence": 7}';
    const good2 = '{"id": "d", "type": "semantic", "content": "Handlers live in src/routes"}';
    io.externalWrite(FILE, ['# my notes', good1, broken, badValue, good2].join('\n') + '\n');
    const { lines, log } = collectLog();
    const store = await MemoryStore.open(io, FILE, 'workspace', { log });
    assert.deepEqual(
      store.items.map((i) => i.id),
      ['a', 'd'],
    );
    assert.deepEqual(
      store.corruptLines.map((c) => c.line),
      [3, 4],
    );
    assert.match(store.corruptLines[1].error, /confidence/);
    assert.equal(lines.length, 2);
    assert.match(lines[0], /memory\.jsonl:3/);

    await store.add([learning('A brand new lesson about docker')]);
    await store.remove('a');
    const after = (await io.read(FILE))!.trimEnd().split('\n');
    assert.equal(after[0], '# my notes');
    assert.equal(after[1], broken, 'corrupt line kept verbatim, in place');
    assert.equal(after[2], badValue);
    assert.equal(JSON.parse(after[3]).id, 'd');
    assert.match(after[4], /brand new lesson/);
    assert.deepEqual(
      store.corruptLines.map((c) => c.line),
      [2, 3],
      'line numbers follow the rewrite',
    );
  });

  it('fills defaults for a hand-added line and gives it an id that is stable across reloads', async () => {
    const io = new InMemoryFileIO();
    io.externalWrite(FILE, '{"type": "semantic", "content": "The API is in src/api", "note": "mine"}\n');
    const a = await MemoryStore.open(io, FILE, 'workspace');
    const b = await MemoryStore.open(io, FILE, 'workspace');
    assert.equal(a.items[0].id, b.items[0].id);
    assert.equal(a.items[0].confidence, 0.5);
    await a.touch([a.items[0].id]);
    const obj = JSON.parse((await io.read(FILE))!.trim());
    assert.equal(obj.note, 'mine', 'unknown keys survive a rewrite');
    assert.equal(obj.accessCount, 1);
  });

  it('merges duplicates: same normalized content or high lexical similarity', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace', { now: fixedNow });
    await store.add([learning('Run tests with pnpm, not npm.', { confidence: 0.6, tags: ['tests'] })]);
    const [merged] = await store.add([learning('run tests with PNPM not npm', { confidence: 0.6, tags: ['pnpm'] })]);
    let items = await store.list();
    assert.equal(items.length, 1);
    assert.equal(merged.accessCount, 1);
    assert.ok(merged.confidence > 0.6 && merged.confidence <= 1, `confidence rose: ${merged.confidence}`);
    assert.deepEqual(items[0].tags, ['tests', 'pnpm']);

    await store.add([learning('Run the tests with pnpm, not with npm', { confidence: 0.8 })]);
    items = await store.list();
    assert.equal(items.length, 1, 'near-duplicate merged');
    assert.equal(items[0].accessCount, 2);

    await store.add([learning('Build the docs with mkdocs serve')]);
    assert.equal((await store.list()).length, 2, 'different content is not merged');
  });

  it('picks up external edits (mtime change) and never clobbers them', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace');
    await store.add([learning('Lesson one about eslint')]);
    const edited = (await io.read(FILE))!.replace('Lesson one about eslint', 'Lesson one about biome');
    io.externalWrite(FILE, edited + '{"type": "semantic", "content": "User wrote this by hand"}\n');
    const items = await store.list();
    assert.deepEqual(
      items.map((i) => i.content),
      ['Lesson one about biome', 'User wrote this by hand'],
    );
    io.externalWrite(FILE, (await io.read(FILE))! + '{"id": "z", "type": "semantic", "content": "Added later"}\n');
    await store.add([learning('Lesson two about vitest')]);
    const contents = (await store.list()).map((i) => i.content);
    assert.deepEqual(contents, [
      'Lesson one about biome',
      'User wrote this by hand',
      'Added later',
      'Lesson two about vitest',
    ]);
  });

  it('removes by id', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace');
    const [a] = await store.add([learning('Lesson about cargo')]);
    await store.add([learning('Lesson about gradle')]);
    assert.equal(await store.remove(a.id), true);
    assert.equal(await store.remove('nope'), false);
    assert.deepEqual(
      (await MemoryStore.open(io, FILE, 'workspace')).items.map((i) => i.content),
      ['Lesson about gradle'],
    );
    assert.equal(store.filePath, FILE);
  });

  it('serializes concurrent writes so none is lost', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-mem-'));
    try {
      const file = path.join(dir, 'memory.jsonl');
      const store = await MemoryStore.open(new NodeMemoryFileIO(), file, 'global');
      const topics = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
      await Promise.all(topics.map((t) => store.add([learning(`Lesson ${t} ${t}word`)])));
      const reloaded = await MemoryStore.open(new NodeMemoryFileIO(), file, 'global');
      assert.equal(reloaded.items.length, topics.length);
      assert.ok(reloaded.items.every((i) => i.scope === 'global'));
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('touch updates lastUsedAt and accessCount', async () => {
    const io = new InMemoryFileIO();
    const store = await MemoryStore.open(io, FILE, 'workspace', { now: fixedNow });
    const [a] = await store.add([learning('Lesson about poetry')]);
    await store.touch([a.id, 'unknown']);
    const [item] = await store.list();
    assert.equal(item.accessCount, 1);
    assert.equal(item.lastUsedAt, fixedNow().toISOString());
  });
});
