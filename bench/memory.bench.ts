// Memory: heap after 500 scripted iterations with compaction on (small context window, so the history is
// summarised every few dozen iterations). Bounded means the heap stops growing with the iteration count:
// the figure is the slope of heapUsed (after a forced GC) over iterations 100..500.
import { Agent } from '../src/core/loop/agent';
import { allowAll, doneTurn, InstantModel, probeTool, summaryTurn, toolCallTurn } from './lib/fixtures';
import { emit, figure, gc, log, mb, QUICK } from './lib/harness';

const ITERATIONS = 500;

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

async function main() {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with --expose-gc');
  const every = QUICK ? 50 : 25;
  const xs: number[] = [];
  const heaps: number[] = [];
  let historyLen = 0;
  const model = new InstantModel((_req, i) => (i < ITERATIONS ? toolCallTurn('probe', { path: `src/m${i % 50}/file${i}.ts` }) : doneTurn()));
  model.onStream = (req, i) => {
    historyLen = req.messages.length;
    if (i >= 100 && i % every === 0) {
      gc();
      gc();
      xs.push(i);
      heaps.push(process.memoryUsage().heapUsed);
    }
  };
  const agent = new Agent({
    model,
    summarizer: new InstantModel(() => summaryTurn()),
    tools: [probeTool(2000)],
    approver: allowAll,
    config: { maxIterations: ITERATIONS + 10, contextWindow: 24_000, compactAt: 0.9, keepRecentTurns: 4 },
  });
  let compactions = 0;
  let events = 0;
  agent.on((e) => {
    events++;
    if (e.type === 'compaction') compactions++;
  });
  gc();
  const before = process.memoryUsage().heapUsed;
  const report = await agent.send('Audit every module for unchecked errors.');
  if (report.reason !== 'done') throw new Error(`memory run ended with ${report.reason}: ${report.detail}`);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  const perIterKB = slope(xs, heaps) / 1024;
  const input = { iterations: ITERATIONS, toolResultChars: 2000, contextWindowTokens: 24_000, compactAt: 0.9, compactions, events, finalHistoryMessages: historyLen };
  const f = emit(
    figure(
      {
        name: 'memory.heap_growth_per_iteration',
        unit: 'KB/iteration',
        input,
        // < 2 KB/iteration: less than one 2 KB tool result retained per iteration, i.e. the history is not kept.
        goal: { max: 2 },
        budget: { max: 20 },
        extra: {
          heapBeforeMB: mb(before), heapAfterMB: mb(after), heapSamplesMB: heaps.map(mb), sampledAt: xs,
          retainedByDesign: 'per-run records that grow by design: RunReport.steps (one StepReport per iteration) and the facts set of files read',
        },
      },
      [perIterKB],
    ),
  );
  emit(figure({ name: 'memory.heap_after_500_iterations', unit: 'MB', input, goal: null, extra: { heapBeforeMB: mb(before) } }, [mb(after)]));
  log(`memory: ${f.median} KB/iteration; heap ${mb(before)} -> ${mb(after)} MB; ${compactions} compactions`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
