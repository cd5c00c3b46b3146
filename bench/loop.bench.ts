// Loop overhead per iteration: zero-latency model and tool, history of 10 / 200 / 1,000 messages.
// One sample = the time between two consecutive model calls = one whole iteration minus model and tool time.
import { Agent } from '../src/core/loop/agent';
import type { AgentSnapshot } from '../src/core/tasks/snapshot';
import { allowAll, doneTurn, historyChars, InstantModel, makeHistory, probeTool, toolCallTurn } from './lib/fixtures';
import { emit, figure, log, QUICK } from './lib/harness';

const SIZES = [10, 200, 1000];
const ITERATIONS_PER_RUN = 10;

async function measure(size: number, runs: number): Promise<number[]> {
  const history = makeHistory(size, 600);
  const tokens = Math.ceil(historyChars(history) / 4);
  const samples: number[] = [];
  for (let r = 0; r < runs; r++) {
    const model = new InstantModel((_req, i) =>
      i < ITERATIONS_PER_RUN ? toolCallTurn('probe', { path: `src/run${r}/f${i}.ts` }, tokens + i * 200) : doneTurn(),
    );
    const snapshot: AgentSnapshot = {
      version: 1, taskId: `bench-${size}-${r}`, mode: 'agent', history, iterations: 0, maxIterations: 50,
      allowedForTask: [], usage: { inputTokens: 0, outputTokens: 0 }, counters: { runs: 0, approvals: 0 },
    };
    const agent = Agent.restore(snapshot, { model, tools: [probeTool(600)], approver: allowAll, config: { maxIterations: 50 } });
    agent.on(() => undefined); // a subscriber, as the panel would be
    const report = await agent.send('Next file, please.');
    if (report.reason !== 'done') throw new Error(`run ended with ${report.reason}: ${report.detail}`);
    const t = model.startedAt;
    for (let i = 1; i < t.length; i++) samples.push(t[i]! - t[i - 1]!);
  }
  return samples;
}

async function main() {
  const runs = QUICK ? 6 : 30;
  const medians: Record<number, number> = {};
  await measure(200, 3); // warm the JIT before the first measured size
  for (const size of SIZES) {
    const samples = await measure(size, runs);
    const f = emit(
      figure(
        {
          name: `loop.iteration.h${size}`,
          unit: 'ms',
          input: { historyMessages: size, iterationsPerRun: ITERATIONS_PER_RUN, runs, toolResultChars: 600, model: 'instant', tool: 'instant' },
          goal: size === 200 ? { max: 2 } : size === 1000 ? { max: 10 } : { max: 2 },
          budget: { max: size === 1000 ? 500 : 100 },
          limitedBy: 'see RESULTS.md profile notes',
        },
        samples,
      ),
    );
    medians[size] = f.median;
    log(`loop h${size}: median ${f.median} ms p95 ${f.p95} ms`);
  }
  // Growth: time ratio 1000 vs 200 messages against the size ratio (5x). <= 5 is linear or better.
  const ratio = medians[1000]! / medians[200]!;
  emit(
    figure(
      {
        name: 'loop.iteration.growth',
        unit: 'ratio',
        input: { from: 200, to: 1000, sizeRatio: 5 },
        goal: { max: 5 },
        budget: { max: 10 },
        extra: { medians },
      },
      [ratio],
    ),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
