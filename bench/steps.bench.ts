// The extension's overhead per step as one task grows to hundreds of tool calls (issue 10: "flat as a task grows").
// One run of 300 steps: an instant scripted model (each turn one tool call) and a no-op tool, with the panel's
// transcript folding every event as the host does. A sample is the time from the model's last event to the next
// request reaching the model: the loop's whole per-step work (tool bookkeeping, monitors, report, context build,
// transcript patches), the tool itself excluded (it answers at once). Steps 1-10 against steps 291-300: the
// overhead must not grow with the number of steps already taken (goal: the late median under 1.5x the early one).
import { Agent } from '../src/core/loop/agent';
import type { ModelEvent, ModelRequest } from '../src/core/model/types';
import { Transcript } from '../src/panel/transcript';
import { allowAll, doneTurn, InstantModel, probeTool, toolCallTurn } from './lib/fixtures';
import { emit, figure, log, QUICK } from './lib/harness';

const STEPS = 300;
const EARLY = [1, 10] as const;
const LATE = [STEPS - 9, STEPS] as const;

/** InstantModel that also records when it yielded its last event (the model's last byte). */
class TimedModel extends InstantModel {
  readonly endedAt: number[] = [];
  override async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    for await (const e of super.stream(request)) yield e;
    this.endedAt.push(performance.now());
  }
}

async function oneRun(): Promise<number[]> {
  const model = new TimedModel((_req, i) => (i < STEPS ? toolCallTurn('probe', { path: `src/m${i % 40}/file${i}.ts` }, 2000 + i * 300) : doneTurn()));
  const agent = new Agent({
    model,
    tools: [probeTool(600)],
    approver: allowAll,
    // A window large enough that no compaction runs: the history really grows to 600+ messages.
    config: { maxIterations: STEPS + 10, contextWindow: 1_000_000 },
  });
  const transcript = new Transcript();
  agent.on((e) => void transcript.apply(e));
  const report = await agent.send('Audit every module for unchecked errors.');
  if (report.reason !== 'done') throw new Error(`steps run ended with ${report.reason}: ${report.detail}`);
  // Sample k = from the end of model call k-1 to the start of model call k (k = 1..STEPS).
  const out: number[] = [];
  for (let k = 1; k < model.startedAt.length; k++) out.push(model.startedAt[k]! - model.endedAt[k - 1]!);
  return out;
}

async function main() {
  const runs = QUICK ? 4 : 12;
  await oneRun(); // JIT warm-up
  const early: number[] = [];
  const late: number[] = [];
  for (let r = 0; r < runs; r++) {
    const s = await oneRun();
    early.push(...s.slice(EARLY[0] - 1, EARLY[1]));
    late.push(...s.slice(LATE[0] - 1, LATE[1]));
  }
  const input = { steps: STEPS, runs, toolResultChars: 600, model: 'instant (scripted)', tool: 'no-op', subscriber: 'panel transcript fold', compaction: 'none (1M window)' };
  const e = emit(figure({ name: 'steps.overhead.early', unit: 'ms', input: { ...input, steps: `${EARLY[0]}-${EARLY[1]}` }, goal: { max: 2 }, budget: { max: 50 } }, early));
  const l = emit(figure({ name: 'steps.overhead.late', unit: 'ms', input: { ...input, steps: `${LATE[0]}-${LATE[1]}` }, goal: { max: 2 }, budget: { max: 50 } }, late));
  const ratio = l.median / e.median;
  emit(figure({ name: 'steps.overhead.growth', unit: 'ratio', input: { from: `steps ${EARLY[0]}-${EARLY[1]}`, to: `steps ${LATE[0]}-${LATE[1]}`, flat: 1 }, goal: { max: 1.5 }, budget: { max: 5 }, extra: { earlyMedianMs: e.median, lateMedianMs: l.median } }, [ratio]));
  log(`steps: early median ${e.median} ms, late median ${l.median} ms, growth ${ratio.toFixed(2)}x`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
