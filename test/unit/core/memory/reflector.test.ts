import * as assert from 'node:assert/strict';
import {
  extractJsonArray,
  ForgeMemory,
  InMemoryFileIO,
  MemoryStore,
  REFLECTION_SYSTEM_PROMPT,
  Reflector,
} from '../../../../src/core/memory';
import type { ReflectionInput } from '../../../../src/core/memory';
import { collectLog, GOOD_LEARNING, HISTORY, report, ScriptedReflectionModel } from './helpers';

async function setup(
  replies: ConstructorParameters<typeof ScriptedReflectionModel>[0],
  reflectorOpts: Partial<ConstructorParameters<typeof Reflector>[0]> = {},
) {
  const io = new InMemoryFileIO();
  const workspace = await MemoryStore.open(io, '/ws/.forge/memory.jsonl', 'workspace');
  const global = await MemoryStore.open(io, '/global/memory.jsonl', 'global');
  const model = new ScriptedReflectionModel(replies, { inputTokens: 1000, outputTokens: 100 });
  const { lines, log } = collectLog();
  const reflector = new Reflector({ budgetUsd: 1, log, ...reflectorOpts });
  const memory = new ForgeMemory({ workspace, global, reflector, log });
  const input = (r: ReflectionInput['report'], trigger: ReflectionInput['trigger'] = 'run_end'): ReflectionInput => ({
    trigger,
    report: r,
    history: HISTORY,
    model,
    signal: new AbortController().signal,
  });
  return { io, workspace, global, model, lines, memory, input };
}

describe('memory/Reflector', () => {
  for (const [reason, iterations] of [
    ['done', 3],
    ['error', 1],
    ['stagnation', 6],
    ['asked', 4],
    ['breaker', 2],
  ] as const) {
    it(`stores learnings after a run that ended "${reason}"`, async () => {
      const s = await setup([JSON.stringify([GOOD_LEARNING])]);
      const stored = await s.memory.reflect(s.input(report(reason, iterations)));
      assert.equal(stored.length, 1);
      assert.equal(stored[0].content, GOOD_LEARNING.content);
      assert.deepEqual(
        (await s.workspace.list()).map((i) => i.content),
        [GOOD_LEARNING.content],
      );
      const req = s.model.requests[0];
      assert.deepEqual(req.tools, [], 'reflection gets no tools');
      assert.equal(req.system[0].text, REFLECTION_SYSTEM_PROMPT);
      const prompt = (req.messages[0] as { content: string }).content;
      assert.match(prompt, new RegExp(`reason: ${reason}`));
      assert.match(prompt, /this repo uses pnpm/, 'the tool error is in the transcript');
    });
  }

  it('reflects right after a tool error (no report yet)', async () => {
    const s = await setup([`Here you go:\n\`\`\`json\n${JSON.stringify([GOOD_LEARNING])}\n\`\`\`\nHope it helps.`]);
    const stored = await s.memory.reflect(s.input(undefined, 'tool_error'));
    assert.equal(stored.length, 1);
    assert.match((s.model.requests[0].messages[0] as { content: string }).content, /a tool call just failed/);
  });

  const malformed: [string, string, RegExp][] = [
    ['not JSON at all', 'I learned that tests are important.', /no JSON array found/],
    ['wrong fields', JSON.stringify([{ lesson: 'use pnpm', certainty: 'high' }]), /dropped learning #1: type/],
    ['confidence 7', JSON.stringify([{ ...GOOD_LEARNING, confidence: 7 }]), /dropped learning #1: confidence/],
    ['unknown type', JSON.stringify([{ ...GOOD_LEARNING, type: 'opinion' }]), /dropped learning #1: type/],
    ['truncated JSON', JSON.stringify([GOOD_LEARNING]).slice(0, 40), /no JSON array found/],
  ];
  for (const [name, output, logPattern] of malformed) {
    it(`drops malformed output (${name}) with a log line and no throw`, async () => {
      const s = await setup([output]);
      const stored = await s.memory.reflect(s.input(report('error', 3)));
      assert.deepEqual(stored, []);
      assert.deepEqual(await s.workspace.list(), []);
      assert.ok(
        s.lines.some((l) => logPattern.test(l)),
        s.lines.join('\n'),
      );
    });
  }

  it('keeps the valid items of a mixed answer and caps at 3', async () => {
    const items = [
      GOOD_LEARNING,
      { ...GOOD_LEARNING, confidence: 1.5 },
      { type: 'semantic', content: 'Parser code is in src/parse', context: '', confidence: 0.7, tags: [] },
      { type: 'semantic', content: 'The CI runs on Node 20 only', context: '', confidence: 0.7, tags: [] },
      { type: 'episodic', content: 'Tried npm test, it refused', context: '', confidence: 0.7, tags: [] },
    ];
    const s = await setup([`Learnings: ${JSON.stringify({ learnings: items })}`]);
    const stored = await s.memory.reflect(s.input(report('done', 4)));
    assert.equal(stored.length, 3);
    assert.ok(s.lines.some((l) => /#2: confidence/.test(l)));
    assert.ok(s.lines.some((l) => /#5: more than 3/.test(l)));
  });

  it('survives a model that throws', async () => {
    const s = await setup([new Error('503 overloaded')]);
    assert.deepEqual(await s.memory.reflect(s.input(report('error', 2))), []);
    assert.ok(s.lines.some((l) => /503 overloaded/.test(l)));
  });

  it('respects the per-run budget: a second reflection is refused once the first spent it', async () => {
    const price = (u: { inputTokens: number; outputTokens: number }) => (u.inputTokens + u.outputTokens) * 1e-5; // 1100 tok -> $0.011
    const s = await setup([JSON.stringify([GOOD_LEARNING]), JSON.stringify([GOOD_LEARNING])], {
      budgetUsd: 0.011,
      price,
      maxOutputTokens: 10,
    });
    assert.equal((await s.memory.reflect({ ...s.input(undefined, 'tool_error'), runId: 'r1' })).length, 1);
    assert.equal((await s.memory.reflect(s.input(report('error', 3, { runId: 'r1' })))).length, 0);
    assert.equal(s.model.requests.length, 1, 'the model was not called again');
    assert.ok(s.lines.some((l) => /refused, budget/.test(l)));
    // another run has its own budget
    assert.equal((await s.memory.reflect(s.input(report('error', 3, { runId: 'r2' })))).length, 1);
  });

  it('shares one budget between a tool-error reflection (signal only) and the run-end one (same signal + runId)', async () => {
    // each call costs $0.02 (reported or projected); the budget of $0.03 allows one per run
    const s = await setup([JSON.stringify([GOOD_LEARNING]), JSON.stringify([GOOD_LEARNING])], {
      budgetUsd: 0.03,
      price: () => 0.02,
    });
    const signal = new AbortController().signal;
    assert.equal((await s.memory.reflect({ ...s.input(undefined, 'tool_error'), signal })).length, 1);
    assert.equal((await s.memory.reflect({ ...s.input(report('error', 3, { runId: 'rx' })), signal })).length, 0);
    assert.equal(s.model.requests.length, 1);
  });

  it('refuses up front when the projected cost exceeds what is left', async () => {
    const s = await setup([JSON.stringify([GOOD_LEARNING])], { budgetUsd: 0.0001, price: () => 0.01 });
    assert.deepEqual(await s.memory.reflect(s.input(report('error', 3))), []);
    assert.equal(s.model.requests.length, 0);
  });

  it('caps the number of reflections per run when the price is unknown', async () => {
    const s = await setup(Array(5).fill('[]'), { maxReflectionsPerRun: 2 });
    for (let i = 0; i < 4; i++) await s.memory.reflect({ ...s.input(undefined, 'tool_error'), runId: 'r' });
    assert.equal(s.model.requests.length, 2);
  });

  it('skips trivial runs (< 2 iterations, no errors) but not short failing ones', async () => {
    const s = await setup([JSON.stringify([GOOD_LEARNING])]);
    const trivial = { ...s.input(report('done', 1)), history: HISTORY.slice(0, 1) };
    assert.deepEqual(await s.memory.reflect(trivial), []);
    assert.equal(s.model.requests.length, 0);
    assert.ok(s.lines.some((l) => /skipped \(trivial run/.test(l)));
    const shortFailure = { ...s.input(report('done', 1, { toolError: 'exit 1' })), history: HISTORY.slice(0, 1) };
    assert.equal((await s.memory.reflect(shortFailure)).length, 1);
  });

  it('makes the skip rule configurable', async () => {
    const s = await setup([JSON.stringify([GOOD_LEARNING])], { minIterations: 5 });
    assert.deepEqual(await s.memory.reflect({ ...s.input(report('done', 4)), history: HISTORY.slice(0, 1) }), []);
    assert.equal(s.model.requests.length, 0);
  });

  it('routes cross-project learnings to the global store and gives episodes as context', async () => {
    const globalLesson = {
      type: 'semantic',
      content: 'pnpm workspaces need -r to run scripts in all packages',
      context: '',
      confidence: 0.8,
      tags: ['pnpm', 'global'],
    };
    const scoped = { ...GOOD_LEARNING, content: 'Git hooks here run lint-staged', scope: 'global' };
    const episode = {
      type: 'episodic',
      content: 'The run on unit tests stalled on a flaky parser test',
      context: '',
      confidence: 0.6,
      tags: ['tests'],
    };
    const s = await setup([JSON.stringify([globalLesson, scoped, episode]), '[]']);
    await s.memory.reflect(s.input(report('done', 3)));
    assert.deepEqual(
      (await s.global.list()).map((i) => i.content).sort(),
      [scoped.content, globalLesson.content].sort(),
    );
    assert.deepEqual((await s.global.list()).find((i) => i.content === globalLesson.content)!.tags, ['pnpm']);
    assert.deepEqual(
      (await s.workspace.list()).map((i) => i.type),
      ['episodic'],
    );
    await s.memory.reflect(s.input(report('done', 3)));
    const prompt = (s.model.requests[1].messages[0] as { content: string }).content;
    assert.match(prompt, /Earlier episodes[\s\S]*flaky parser test/);
    assert.match(prompt, /Already known[\s\S]*lint-staged|Already known[\s\S]*-r to run/);
  });
});

describe('memory/extractJsonArray', () => {
  it('finds the array in fences, prose, wrappers and single objects', () => {
    assert.deepEqual(extractJsonArray('[1]'), [1]);
    assert.deepEqual(extractJsonArray('Sure!\n```json\n[{"a":1}]\n```'), [{ a: 1 }]);
    assert.deepEqual(extractJsonArray('Learnings: [{"a":1}] — done.'), [{ a: 1 }]);
    assert.deepEqual(extractJsonArray('{"learnings": [2]}'), [2]);
    assert.deepEqual(extractJsonArray('{"content": "x"}'), [{ content: 'x' }]);
    assert.equal(extractJsonArray('nothing here'), undefined);
    assert.equal(extractJsonArray('{"foo": 1}'), undefined);
  });
});
