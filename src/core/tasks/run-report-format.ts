// A task's run reports as Markdown ("Forge: Show Run Report"): per run the outcome and totals (model time, tool
// time, tokens, cost), then a table per step (model latency, usage, finish reason) and its tool calls (latency,
// result size, error).
import { runTotals as sumSteps } from '../loop/run-totals';
import type { StoredRunReport } from './run-reports';
import { plural } from '../plural';

const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`);
const usd = (n: number | undefined) => (n === undefined ? 'unknown' : `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`);
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

interface RunTotals {
  modelMs: number;
  toolMs: number;
  toolCalls: number;
  toolErrors: number;
}

/** The report's own totals, or (for reports stored before they existed) summed from its steps. */
export function runTotals(r: Pick<StoredRunReport, 'steps' | 'totals'>): RunTotals {
  return r.totals ?? sumSteps(r.steps);
}

export function runReportMarkdown(title: string, reports: readonly StoredRunReport[]): string {
  const out: string[] = [`# Run report: ${cell(title)}`, ''];
  if (!reports.length) {
    out.push('No run of this task has finished yet.');
    return out.join('\n');
  }
  const all = reports.reduce(
    (a, r) => {
      const t = runTotals(r);
      return {
        modelMs: a.modelMs + t.modelMs,
        toolMs: a.toolMs + t.toolMs,
        input: a.input + r.usage.inputTokens,
        output: a.output + r.usage.outputTokens,
        cost: r.costUsd === undefined || a.cost === undefined ? undefined : a.cost + r.costUsd,
      };
    },
    { modelMs: 0, toolMs: 0, input: 0, output: 0, cost: 0 as number | undefined },
  );
  out.push(
    `${plural(reports.length, 'run')} · model time ${ms(all.modelMs)} · tool time ${ms(all.toolMs)} · ${all.input} input / ${all.output} output tokens · cost ${usd(all.cost)}`,
    '',
  );
  reports.forEach((r, i) => {
    const t = runTotals(r);
    out.push(`## Run ${i + 1}: ${r.reason} (${new Date(r.endedAt).toISOString()})`, '');
    out.push(
      `- Iterations: ${r.iterations} · elapsed ${ms(r.elapsedMs)} · **model time ${ms(t.modelMs)}** · **tool time ${ms(t.toolMs)}**`,
    );
    out.push(`- Tokens: ${r.usage.inputTokens} input / ${r.usage.outputTokens} output · cost ${usd(r.costUsd)}`);
    out.push(`- Tool calls: ${t.toolCalls}${t.toolErrors ? ` (${t.toolErrors} failed)` : ''}`);
    if (r.fallback) out.push(`- Switched from ${r.fallback.from} to ${r.fallback.to}: ${cell(r.fallback.reason)}`);
    if (r.detail) out.push(`- Detail: ${cell(r.detail.slice(0, 500))}`);
    out.push(
      '',
      '| Step | Model latency | Input | Output | Cost | Finish | Tool calls |',
      '|---:|---:|---:|---:|---:|---|---|',
    );
    for (const s of r.steps) {
      const calls = s.toolCalls.map(
        (c) =>
          `${c.name} ${ms(c.latencyMs)}, ${c.resultChars} chars${c.attempts > 1 ? `, ${c.attempts} attempts` : ''}${c.error ? `, **error** (${c.errorClass ?? 'tool'}): ${c.error.slice(0, 120)}` : ''}`,
      );
      const usage = s.usage
        ? [
            `${s.usage.inputTokens}${s.usageEstimated ? '~' : ''}`,
            `${s.usage.outputTokens}${s.usageEstimated ? '~' : ''}`,
          ]
        : ['', ''];
      out.push(
        `| ${s.iteration} | ${ms(s.latencyMs)} | ${usage[0]} | ${usage[1]} | ${s.costUsd === undefined ? '' : usd(s.costUsd)} | ${s.finishReason ?? (s.error ? `error: ${s.error.slice(0, 80)}` : '')}${s.model ? ` (${s.model})` : ''} | ${cell(calls.join('; '))} |`,
      );
    }
    out.push('');
  });
  out.push('_~ marks token counts Forge estimated (the provider reported none)._');
  return out.join('\n');
}
