// Parallel tasks in one extension host: event-loop delay and memory while 1 and 4 tasks stream at once.
// Each task is the real Agent with a streaming model (text deltas paced like a fast provider, ~400 tokens/s,
// then a tool call; 8 iterations), a tool returning 2 KB, and the panel's Transcript folding every event, as
// the extension host does for a visible task. The workload per task is the same in both runs, so the 4-task
// figures show what concurrency costs the host.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent } from '../src/core/loop/agent';
import type { Model, ModelEvent, ModelInfo, ModelRequest } from '../src/core/model/types';
import { Transcript } from '../src/panel/transcript';
import { allowAll, codeText, probeTool, toolCallTurn } from './lib/fixtures';
import { emit, figure, gc, log, mb, QUICK } from './lib/harness';

const ITERATIONS = QUICK ? 4 : 8;
const DELTAS_PER_TURN = 120;
const DELTA_CHARS = 12;
/** One 2 ms pause every 3 deltas: ~36 deltas of ~3 tokens per 24 ms, about 400 tokens/s per task. */
const PAUSE_EVERY = 3;

class StreamingModel implements Model {
  readonly info: ModelInfo = { provider: 'bench', model: 'streaming', contextWindow: 1_000_000, maxOutputTokens: 4096, nativeTools: true };
  private calls = 0;
  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const i = this.calls++;
    const text = codeText(DELTAS_PER_TURN * DELTA_CHARS, i + 1);
    for (let d = 0; d < DELTAS_PER_TURN; d++) {
      if (d % PAUSE_EVERY === 0) await new Promise((r) => setTimeout(r, 2));
      request.signal?.throwIfAborted();
      yield { type: 'text', delta: text.slice(d * DELTA_CHARS, (d + 1) * DELTA_CHARS) };
    }
    yield* i < ITERATIONS - 1 ? toolCallTurn('probe', { path: `src/f${i}.ts` }, 2000 + i * 500) : toolCallTurn('task_completion', { result: 'done' }, 2000);
  }
}

interface Outcome {
  p50: number;
  p99: number;
  max: number;
  heapMb: number;
  rssMb: number;
  events: number;
  wallMs: number;
}

async function scenario(tasks: number): Promise<Outcome> {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  const h = monitorEventLoopDelay({ resolution: 1 });
  let events = 0;
  let peakHeap = heap0;
  let peakRss = rss0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const t0 = performance.now();
  h.enable();
  const runs = Array.from({ length: tasks }, (_, k) => {
    const agent = new Agent({ model: new StreamingModel(), tools: [probeTool(2000)], approver: allowAll, config: { maxIterations: 50 }, taskId: `bench-par-${k}` });
    const transcript = new Transcript();
    agent.on((e) => {
      events++;
      transcript.apply(e);
    });
    return agent.send('Work through the files.').then((r) => {
      if (r.reason !== 'done') throw new Error(`task ${k} ended ${r.reason}: ${r.detail}`);
      return transcript;
    });
  });
  const transcripts = await Promise.all(runs);
  h.disable();
  clearInterval(sampler);
  const wallMs = performance.now() - t0;
  if (transcripts.length !== tasks) throw new Error('lost a task');
  return {
    p50: h.percentile(50) / 1e6,
    p99: h.percentile(99) / 1e6,
    max: h.max / 1e6,
    heapMb: mb(peakHeap - heap0),
    rssMb: mb(peakRss - rss0),
    events,
    wallMs,
  };
}

async function main() {
  await scenario(1); // warm the JIT
  const repeats = QUICK ? 2 : 5;
  for (const tasks of [1, 4]) {
    const outs: Outcome[] = [];
    for (let r = 0; r < repeats; r++) outs.push(await scenario(tasks));
    const input = { tasks, iterations: ITERATIONS, deltasPerTurn: DELTAS_PER_TURN, toolResultChars: 2000, subscriber: 'panel Transcript', repeats };
    const extra = { eventsPerRun: outs[0]!.events, wallMs: Math.round(outs[0]!.wallMs), p50Ms: outs.map((o) => Math.round(o.p50 * 100) / 100) };
    emit(figure({ name: `parallel.loopDelay.p99.t${tasks}`, unit: 'ms', input, goal: { max: 10 }, budget: { max: 50 }, extra }, outs.map((o) => o.p99)));
    emit(figure({ name: `parallel.loopDelay.max.t${tasks}`, unit: 'ms', input, goal: { max: 30 }, budget: { max: 200 } }, outs.map((o) => o.max)));
    emit(figure({ name: `parallel.heapPeak.t${tasks}`, unit: 'MB', input, goal: { max: 64 }, budget: { max: 256 } }, outs.map((o) => o.heapMb)));
    emit(figure({ name: `parallel.rssPeak.t${tasks}`, unit: 'MB', input, goal: null }, outs.map((o) => o.rssMb)));
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    log(`${tasks} task(s): loop delay p99 ${med(outs.map((o) => o.p99)).toFixed(2)} ms, max ${med(outs.map((o) => o.max)).toFixed(2)} ms; heap +${med(outs.map((o) => o.heapMb)).toFixed(1)} MB, rss +${med(outs.map((o) => o.rssMb)).toFixed(1)} MB; ${outs[0]!.events} events in ${Math.round(outs[0]!.wallMs)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
