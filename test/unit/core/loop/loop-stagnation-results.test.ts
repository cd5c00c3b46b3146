// No-progress stagnation judged by what calls bring: a list, search, file range or output page already seen is
// nothing new, whatever the arguments; a result that changed is progress.
import assert from 'node:assert/strict';
import { z } from 'zod';
import { StagnationDetector, resultDigest } from '../../../../src/core/loop/stagnation';
import type { Tool, ToolResult } from '../../../../src/core/tools/types';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { fakeWriteTool, harness } from '../../../support/loop-harness';

const STAG = { identicalCalls: 3, noProgressIterations: 4, repeatedErrors: 3 };

/** A read-only tool without effects (like list_files / search_files): its answer comes from `answer`. */
function infoTool(
  name: string,
  input: z.ZodType,
  answer: (args: Record<string, unknown>, n: number) => string,
): Tool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    description: name,
    input,
    risk: 'read',
    calls,
    async execute(args: unknown): Promise<ToolResult> {
      calls.push(args);
      return { content: answer(args as Record<string, unknown>, calls.length) };
    },
  };
}

const listInput = z.object({ path: z.string().optional(), recursive: z.boolean().optional() });
const searchInput = z.object({ pattern: z.string(), path: z.string().optional() });
const pageInput = z.object({ ref: z.string(), startLine: z.number().int().optional() });
const rangeInput = z.object({ path: z.string(), startLine: z.number().int().optional() });

const listing = (args: Record<string, unknown>) => {
  const p = String(args.path ?? '.').replace(/\/$/, '') || '.';
  return p === 'src'
    ? 'src/: 2 entries\na.ts\nb.ts'
    : p === 'test'
      ? 'test/: 1 entries\na.test.ts'
      : 'Workspace root: 3 entries\npackage.json\nsrc/\ntest/';
};

function stagnationWarnings(h: ReturnType<typeof harness>) {
  return h.ofType('warning').filter((w) => w.kind === 'stagnation');
}

describe('core/loop stagnation: calls that bring nothing new', () => {
  it('alternating list_files (A, B, A, B, ...): warn, then stop with a summary', async () => {
    const list = infoTool('list_files', listInput, listing);
    const turns = Array.from({ length: 12 }, (_, i) => callsTurn(['list_files', { path: i % 2 ? 'test' : 'src' }]));
    const h = harness([...turns, doneTurn('never')], { tools: [list], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    // Iterations 1-2 bring new listings; 3..6 repeat them -> warn after 6; still nothing new at 7 -> stop.
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 7);
    assert.equal(stagnationWarnings(h).length, 1);
    assert.match(stagnationWarnings(h)[0].message, /4 iterations without progress/);
    assert.match(h.model.systemText(6), /you appear to be stuck/);
    assert.match(report.detail, /returned what was already seen/);
    assert.match(report.detail, /list_files \{"path":"test"\} -> ok \(nothing new\)/);
  });

  it('alternating search_files: warn, then stop (default thresholds)', async () => {
    const search = infoTool('search_files', searchInput, (a) =>
      a.pattern === 'foo'
        ? 'Found 1 matches in 1 files.\nsrc/a.ts:3: foo()'
        : 'Found 1 matches in 1 files.\nsrc/b.ts:9: bar()',
    );
    const turns = Array.from({ length: 20 }, (_, i) => callsTurn(['search_files', { pattern: i % 2 ? 'bar' : 'foo' }]));
    const h = harness([...turns, doneTurn('never')], { tools: [search] });
    const report = await h.agent.send('t');
    // Default noProgressIterations 6: 2 new, 6 repeats -> warn after 8, stop at 9.
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 9);
    assert.equal(stagnationWarnings(h).length, 1);
  });

  it('the same listing under different arguments is nothing new', async () => {
    const list = infoTool('list_files', listInput, listing);
    const variants = [{}, { path: '.' }, { path: './' }, { path: '.', recursive: false }];
    const turns = Array.from({ length: 10 }, (_, i) => callsTurn(['list_files', variants[i % variants.length]]));
    const h = harness([...turns, doneTurn('never')], { tools: [list], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    // Iteration 1 is new; 2..5 repeat it -> warn after 5; stop at 6.
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 6);
  });

  it('a search whose matches come back in another order is the same result', async () => {
    const rows = ['src/a.ts:3: foo()', 'src/b.ts:9: foo(1)', 'src/c.ts:1: foo(2)'];
    const search = infoTool('search_files', searchInput, (_a, n) => {
      const order = n % 2 ? rows : [...rows].reverse();
      return `Found 3 matches in 3 files.\n${order.join('\n')}`;
    });
    const turns = Array.from({ length: 10 }, (_, i) =>
      callsTurn(['search_files', { pattern: ['foo', 'fo+', 'f.o'][i % 3] }]),
    );
    const h = harness([...turns, doneTurn('never')], { tools: [search], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 6);
  });

  it('pages of command output already read: alternating pages warn, then stop', async () => {
    const page = infoTool(
      'read_command_output',
      pageInput,
      (a) => `Output lines ${a.startLine ?? 1}-${Number(a.startLine ?? 1) + 1} of 4:\n1 | x\n2 | y`,
    );
    const turns = Array.from({ length: 12 }, (_, i) =>
      callsTurn(['read_command_output', { ref: 'cmd-1', startLine: i % 2 ? 3 : 1 }]),
    );
    const h = harness([...turns, doneTurn('never')], { tools: [page], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 7);
  });

  it('a listing that changed (a file appeared) is progress', async () => {
    // The workspace grows between calls (another process, a command): each listing is new information.
    const list = infoTool(
      'list_files',
      listInput,
      (_a, n) => `src/: ${n} entries\n${Array.from({ length: n }, (_, k) => `f${k}.ts`).join('\n')}`,
    );
    const turns = Array.from({ length: 10 }, (_, i) => callsTurn(['list_files', { path: i % 2 ? 'src' : 'src/' }]));
    const h = harness([...turns, doneTurn('finished')], { tools: [list], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(stagnationWarnings(h).length, 0);
  });

  it('a file edited between two identical reads: the second read is progress', async () => {
    // a.ts and b.ts change on disk between reads (the user edits them): re-reading returns new text.
    const version = new Map<string, number>();
    const read: Tool = {
      name: 'read_file',
      description: 'read',
      input: rangeInput,
      risk: 'read',
      async execute(input: unknown) {
        const { path } = input as { path: string };
        const v = (version.get(path) ?? 0) + 1;
        version.set(path, v);
        return { content: `${path} (1 lines)\n1 | version ${v}`, effects: { read: [path] } };
      },
    };
    const turns = Array.from({ length: 12 }, (_, i) => callsTurn(['read_file', { path: i % 2 ? 'a.ts' : 'b.ts' }]));
    const h = harness([...turns, doneTurn('finished')], { tools: [read], config: { stagnation: STAG } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(stagnationWarnings(h).length, 0);
  });

  it('paging through a long file (new ranges of a known path) is progress; re-reading a range is not', async () => {
    const read: Tool = {
      name: 'read_file',
      description: 'read',
      input: rangeInput,
      risk: 'read',
      async execute(input: unknown) {
        const { path, startLine = 1 } = input as { path: string; startLine?: number };
        return {
          content: `${path} (5000 lines), showing lines ${startLine}-${startLine + 99}\n${startLine} | line ${startLine}`,
          effects: { read: [path] },
        };
      },
    };
    const pages = Array.from({ length: 8 }, (_, i) =>
      callsTurn(['read_file', { path: 'big.ts', startLine: 1 + i * 100 }]),
    );
    const h = harness([...pages, doneTurn('finished')], { tools: [read], config: { stagnation: STAG } });
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.equal(stagnationWarnings(h).length, 0);

    const again = Array.from({ length: 12 }, (_, i) =>
      callsTurn(['read_file', { path: 'big.ts', startLine: i % 2 ? 101 : 1 }]),
    );
    const h2 = harness([...again, doneTurn('never')], { tools: [read], config: { stagnation: STAG } });
    const report = await h2.agent.send('t');
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 7);
  });

  it('an edit between repeated lists resets the count', async () => {
    const list = infoTool('list_files', listInput, listing);
    const writes: { path: string; content: string }[] = [];
    const turns = [
      ...Array.from({ length: 5 }, (_, i) => callsTurn(['list_files', { path: i % 2 ? 'test' : 'src' }])),
      callsTurn(['write_file', { path: 'src/c.ts', content: 'x' }]),
      ...Array.from({ length: 4 }, (_, i) => callsTurn(['list_files', { path: i % 2 ? 'test' : 'src' }])),
      doneTurn('finished'),
    ];
    const h = harness(turns, {
      tools: [list, fakeWriteTool(writes)],
      config: { stagnation: { ...STAG, noProgressIterations: 5 } },
    });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(writes.length, 1);
    assert.equal(stagnationWarnings(h).length, 0);
  });

  it('a tool can name what it observed (effects.observed): volatile text around it does not count', () => {
    const d = new StagnationDetector({ identicalCalls: 9, noProgressIterations: 2, repeatedErrors: 9 });
    const obs = (n: number) => ({
      name: 'fetch_status',
      args: { n },
      isError: false,
      ran: true,
      content: `status ok at ${n} ms`,
      effects: { observed: 'status-ok' },
    });
    d.observeIteration([obs(1)]);
    d.observeIteration([obs(2)]);
    assert.equal(d.detect(), undefined);
    d.observeIteration([obs(3)]);
    assert.match(d.detect() ?? '', /2 iterations without progress/);
    assert.match(d.summary(), /fetch_status \{"n":3\} -> ok \(nothing new\)/);
  });

  it('a repeated command is still judged by its command line, not its (timed) output', () => {
    const d = new StagnationDetector({ identicalCalls: 9, noProgressIterations: 3, repeatedErrors: 9 });
    const run = (cmd: string, n: number) => ({
      name: 'execute_command',
      args: { command: cmd },
      isError: false,
      ran: true,
      content: `$ ${cmd}\nExit code: 0 (${n}.0 s)`,
      effects: { command: cmd },
    });
    d.observeIteration([run('npm test', 1)]);
    d.observeIteration([run('npm run lint', 2)]);
    for (let i = 3; i < 6; i++) d.observeIteration([run(i % 2 ? 'npm test' : 'npm run lint', i)]);
    assert.match(d.detect() ?? '', /3 iterations without progress/);
  });

  it('resultDigest: same lines in any order and line-ending style are equal; any change differs', () => {
    assert.equal(resultDigest('a\nb\nc'), resultDigest('c\na\nb'));
    assert.equal(resultDigest('a\r\nb\r\n'), resultDigest('a\nb\n'));
    assert.notEqual(resultDigest('a\nb'), resultDigest('a\nb\nb'));
    assert.notEqual(resultDigest('ab\nc'), resultDigest('a\nbc'));
    assert.notEqual(resultDigest('1 | version 1'), resultDigest('1 | version 2'));
    assert.notEqual(resultDigest(''), resultDigest('\n'));
    // Many near-identical results stay distinct.
    const seen = new Set<string>();
    for (let i = 0; i < 20000; i++) seen.add(resultDigest(`src/: entries\nf${i}.ts\nf${i + 1}.ts`));
    assert.equal(seen.size, 20000);
  });
});
