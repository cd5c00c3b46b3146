import * as assert from 'node:assert/strict';
import {
  fillRecall,
  ForgeMemory,
  InMemoryFileIO,
  memoryBudget,
  MemoryStore,
  rankMemories,
  Reflector,
  estimateTokens,
  type MemoryItem,
} from '../../../../src/core/memory';

const NOW = new Date('2025-03-01T00:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

let seq = 0;
function mem(content: string, extra: Partial<MemoryItem> = {}): MemoryItem {
  return {
    id: `m${++seq}`,
    type: 'procedural',
    content,
    context: '',
    confidence: 0.7,
    tags: [],
    scope: 'workspace',
    createdAt: daysAgo(1),
    accessCount: 0,
    ...extra,
  };
}

describe('memory/rankMemories', () => {
  it('ranks relevant memories first and leaves irrelevant ones out', () => {
    const items = [
      mem('Docker images are built with make image'),
      mem('Run the unit tests with pnpm test, not npm test', { context: 'running tests' }),
      mem('The changelog is generated from commit messages'),
    ];
    const ranked = rankMemories(items, 'Fix the failing unit tests in src/parser', { now: NOW });
    assert.equal(ranked[0].item.content, items[1].content);
    assert.ok(!ranked.some((r) => r.item.content.startsWith('Docker')), 'no shared words -> not recalled');
  });

  it('breaks relevance ties by confidence, then by recency', () => {
    const low = mem('Lint with eslint --fix', { confidence: 0.3 });
    const high = mem('Lint with eslint --fix', { confidence: 0.95 });
    const r1 = rankMemories([low, high], 'lint the code', { now: NOW });
    assert.deepEqual(
      r1.map((r) => r.item.id),
      [high.id, low.id],
    );

    const old = mem('Format with prettier', { createdAt: daysAgo(200) });
    const fresh = mem('Format with prettier', { createdAt: daysAgo(200), lastUsedAt: daysAgo(1) });
    const r2 = rankMemories([old, fresh], 'format files', { now: NOW });
    assert.deepEqual(
      r2.map((r) => r.item.id),
      [fresh.id, old.id],
    );
    assert.ok(r2[0].recency > r2[1].recency);
  });

  it('boosts a tag match, including explicit query tags', () => {
    const untagged = mem('Migrations need a restart of the dev server');
    const tagged = mem('Migrations need a restart of the dev server', { tags: ['database'] });
    const r = rankMemories([untagged, tagged], 'add a database migration', { now: NOW });
    assert.equal(r[0].item.id, tagged.id);
    assert.equal(r[0].tagMatch, true);
    const viaOpt = rankMemories([mem('Use black for formatting', { tags: ['python'] })], 'format this file', {
      now: NOW,
      tags: ['python'],
    });
    assert.equal(viaOpt[0].tagMatch, true);
    assert.ok(viaOpt[0].relevance > 0.2);
  });

  it('recalls memories pinned with the tag "always" even without shared words', () => {
    const r = rankMemories([mem('Never push to main', { tags: ['always'] })], 'rename a variable', { now: NOW });
    assert.equal(r.length, 1);
  });
});

describe('memory/recall and budget', () => {
  it('splits the prompt budget 60/30/10', () => {
    assert.deepEqual(memoryBudget(10_000, 2_000), {
      total: 8_000,
      memory: 4_800,
      conversation: 2_400,
      environment: 800,
    });
    assert.equal(memoryBudget(100, 500).memory, 0);
  });

  it('never exceeds the token budget', () => {
    const items = Array.from({ length: 30 }, (_, i) =>
      mem(`Tests for module ${i} need the flag --runInBand ${'x'.repeat(i * 7)}`),
    );
    const ranked = rankMemories(items, 'run the tests', { now: NOW });
    for (const budget of [0, 10, 60, 150, 400]) {
      const res = fillRecall(ranked, budget);
      assert.ok(estimateTokens(res.promptText) <= budget, `budget ${budget}: ${estimateTokens(res.promptText)}`);
      if (budget >= 150) assert.ok(res.items.length > 0);
      if (res.items.length === 0) assert.equal(res.promptText, '');
    }
    assert.equal(fillRecall(ranked, 100_000, { maxItems: 5 }).items.length, 5);
  });

  it('ForgeMemory.recall: excludes episodic, spans both stores, and touches what it recalled', async () => {
    const io = new InMemoryFileIO();
    const now = () => NOW;
    const workspace = await MemoryStore.open(io, '/ws/.forge/memory.jsonl', 'workspace', { now });
    const global = await MemoryStore.open(io, '/home/global.jsonl', 'global', { now });
    await workspace.add([
      { type: 'procedural', content: 'Run tests with pnpm test', context: '', confidence: 0.9, tags: ['tests'] },
      {
        type: 'episodic',
        content: 'Last time the tests hung on the database container',
        context: '',
        confidence: 0.9,
        tags: [],
      },
    ]);
    await global.add([
      {
        type: 'semantic',
        content: 'Mocha tests need --exit when handles leak',
        context: '',
        confidence: 0.6,
        tags: [],
      },
    ]);
    const memory = new ForgeMemory({ workspace, global, reflector: new Reflector({ budgetUsd: 0 }), now });
    const res = await memory.recall('make the tests pass', 2_000);
    assert.deepEqual(res.items.map((i) => i.type).sort(), ['procedural', 'semantic']);
    assert.match(res.promptText, /Run tests with pnpm test/);
    assert.doesNotMatch(res.promptText, /database container/);
    const touched = (await workspace.list()).find((i) => i.type === 'procedural')!;
    assert.equal(touched.accessCount, 1);
    assert.equal(touched.lastUsedAt, NOW.toISOString());
    assert.equal((await global.list())[0].accessCount, 1);
    assert.equal((await workspace.list()).find((i) => i.type === 'episodic')!.accessCount, 0);
    assert.deepEqual((await memory.recall('make the tests pass', 5)).items, [], 'tiny budget -> nothing');
  });
});
