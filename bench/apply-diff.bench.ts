// apply_diff with 20 search/replace blocks on a 10,000-line file (the original figures) and a 100,000-line file
// (issue 10's goals: < 1 ms exact, < 20 ms with drifted indentation): exact, tolerant (the block quoted with its
// indentation drifted: base removed, 4-space unit instead of the file's 2, a run of spaces squeezed), and a miss
// (closest-candidate report); the growth from 10k to 100k lines (linear = 10x); and the longest event-loop stall
// while it runs (the engine yields every 8 ms). All blocks of 64+ characters share one jumping multi-pattern pass over
// the text (shorter ones one native alternation pass); tolerant blocks share one pass for their rarest words.
import { applyDiff, type SearchReplaceBlock } from '../src/core/tools/apply-diff/apply-diff';
import { emit, figure, log, now, QUICK, withLoopMonitor } from './lib/harness';

const SIZES = [10_000, 100_000];
const BLOCKS = 20;
const GOALS: Record<number, Record<string, { goal: number | null; budget: number }>> = {
  10_000: { exact: { goal: 20, budget: 200 }, tolerant: { goal: 200, budget: 2000 }, miss: { goal: null, budget: 5000 } },
  100_000: { exact: { goal: 1, budget: 200 }, tolerant: { goal: 20, budget: 2000 }, miss: { goal: null, budget: 5000 } },
};

/** TypeScript-like source with realistic repetition ("}", "return ''", blank lines). */
function makeFile(lines: number): string[] {
  const out: string[] = [];
  for (let f = 0; out.length < lines; f++) {
    out.push(
      `export function handler${f}(input: Request${f % 13}, ctx: Context): Result {`,
      `  const value${f} = compute(input.amount, ${f});`,
      `  if (value${f} > ctx.limit) {`,
      `    ctx.log.warn('handler${f}: over limit', { value: value${f} });`,
      `    return { ok: false, reason: 'limit' };`,
      `  }`,
      `  for (const item of input.items) {`,
      `    total += item.price * item.qty;`,
      `  }`,
      `  return { ok: true, value: value${f} };`,
      `}`,
      ``,
    );
  }
  return out.slice(0, lines);
}

function blocksFor(lines: string[], mode: 'exact' | 'tolerant' | 'miss'): SearchReplaceBlock[] {
  const blocks: SearchReplaceBlock[] = [];
  const stride = Math.floor(lines.length / BLOCKS);
  for (let b = 0; b < BLOCKS; b++) {
    const at = b * stride + 12 * 3 + 1; // the "const value" line of some function, 5 lines
    let search = lines.slice(at, at + 5);
    let drift = (l: string) => l;
    let squeeze = (l: string) => l;
    if (mode === 'tolerant' || (mode === 'miss' && b === BLOCKS - 1)) {
      // The model quoted the block with its indentation drifted (base dropped, 4-space unit for the file's 2) and
      // a run of spaces squeezed: no exact match, a tolerant one that must re-indent the whole replacement.
      const ws = (l: string) => /^ */.exec(l)![0].length;
      const base = Math.min(...search.filter((l) => l.trim() !== '').map(ws));
      drift = (l: string) => (l.trim() === '' ? '' : ' '.repeat((ws(l) - base) * 2) + l.trimStart());
      squeeze = (l: string) => l.replace(/ \+= /, ' +=  ');
    }
    const replace = search.map((l) => drift(l).replace('compute(', 'computeV2('));
    search = search.map((l) => squeeze(drift(l)));
    if (mode === 'miss' && b === BLOCKS - 1) search = search.map((l) => l.replace('compute', 'computeTotal').replace('limit', 'max'));
    blocks.push({ search: search.join('\n'), replace: replace.join('\n') });
  }
  return blocks;
}

async function main() {
  const medians = new Map<string, number>();
  for (const LINES of SIZES) {
    const lines = makeFile(LINES);
    const content = lines.join('\n') + '\n';
    const big = LINES >= 100_000;
    const cases = [
      { mode: 'exact' as const, n: QUICK ? 10 : 40 },
      { mode: 'tolerant' as const, n: QUICK ? 5 : 20 },
      { mode: 'miss' as const, n: QUICK ? 3 : 10 },
    ];
    for (const c of cases) {
      const { goal, budget } = GOALS[LINES]![c.mode]!;
      const blocks = blocksFor(lines, c.mode);
      const times: number[] = [];
      const stalls: number[] = [];
      for (let i = 0; i < c.n + 2; i++) {
        const { value, maxBlockMs } = await withLoopMonitor(async () => {
          const t0 = now();
          const r = await applyDiff(content, blocks);
          return { r, ms: now() - t0 };
        });
        const ok = c.mode === 'miss' ? !value.r.ok : value.r.ok && value.r.applied.every((a) => a.match === c.mode);
        if (!ok) throw new Error(`apply_diff ${c.mode}: unexpected result ${JSON.stringify(value.r).slice(0, 400)}`);
        if (c.mode === 'tolerant' && value.r.ok && !value.r.content.includes('\n    ctx.log.warn(\'handler')) throw new Error('apply_diff tolerant: the replacement was not re-indented to the file');
        if (i >= 2) {
          times.push(value.ms);
          stalls.push(maxBlockMs);
        }
      }
      const input = { fileLines: LINES, fileKB: Math.round(content.length / 1024), blocks: BLOCKS, linesPerBlock: 5, match: c.mode === 'miss' ? '19 exact + 1 not found (closest candidate)' : c.mode === 'tolerant' ? 'tolerant (indentation drifted: base dropped, 4-space unit for 2)' : c.mode };
      const name = `apply_diff${big ? '.100k' : ''}.${c.mode}`;
      const f = emit(figure({ name, unit: 'ms', input, goal: goal === null ? null : { max: goal }, budget: { max: budget }, limitedBy: big && c.mode === 'exact' ? 'the one pass must cover the whole 3 MB (every occurrence counts: an ambiguous block is refused). Back to back it takes ~0.8 ms: ~53,000 jumps of the multi-pattern scan (~0.35 ms: every function in this file has the same shape, so a jump averages ~60 characters) + encoding the text to bytes, 128K characters at a time (~0.19 ms) + the newline counts for line numbers (~0.07 ms) + the plan (~0.08 ms) + the CRLF check, the comparisons and allocation (~0.15 ms). With the pause this benchmark makes between runs, the 3 MB text comes from memory, not the cache, each time (+0.2-0.5 ms on this machine)' : undefined }, times));
      const s = emit(figure({ name: `${name}.event_loop_block`, unit: 'ms', input, goal: { max: 50 }, budget: { max: 500 }, judgeOn: 'max' }, stalls));
      medians.set(`${LINES}.${c.mode}`, f.median);
      log(`apply_diff ${LINES} lines ${c.mode}: median ${f.median} ms, p95 ${f.p95} ms; max event-loop block ${s.max} ms`);
    }
  }
  // Linear growth: 10x the lines should cost about 10x (goal: under 15x).
  for (const mode of ['exact', 'tolerant'] as const) {
    const ratio = medians.get(`100000.${mode}`)! / medians.get(`10000.${mode}`)!;
    emit(figure({ name: `apply_diff.${mode}.growth_10k_to_100k`, unit: 'x', input: { fromLines: 10_000, toLines: 100_000, linear: 10 }, goal: { max: 15 }, budget: { max: 40 } }, [ratio]));
    log(`apply_diff ${mode}: 100k/10k = ${ratio.toFixed(1)}x`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
