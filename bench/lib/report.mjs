// Writes bench/RESULTS.md from the results object: machine, every figure against its goal, what limits the misses.
import fs from 'node:fs';

const fmt = (x) =>
  x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? String(x) : String(x);

function goalText(goal, unit) {
  if (!goal) return 'report only';
  const parts = [];
  if (goal.max !== undefined) parts.push(`< ${goal.max} ${unit}`);
  if (goal.min !== undefined) parts.push(`> ${goal.min} ${unit}`);
  if (goal.p90 !== undefined) parts.push(`p90 < ${goal.p90} ${unit}`);
  return parts.join(', ');
}

function inputText(input = {}) {
  return Object.entries(input)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(', ')
    .replace(/\|/g, '\\|');
}

function status(f) {
  if (f.skipped) return 'skipped';
  if (f.withinGoal === true) return 'ok';
  if (f.withinGoal === false) return f.withinBudget === false ? '**OVER GOAL and CI budget**' : '**over goal**';
  return '–';
}

/** Short human summary of the extra fields a figure carries (memory, sizes...). */
function extras(f) {
  const skip = new Set([
    'name',
    'unit',
    'median',
    'p95',
    'n',
    'input',
    'goal',
    'withinGoal',
    'budget',
    'withinBudget',
    'limitedBy',
    'bench',
    'judgedOn',
    'skipped',
  ]);
  return Object.entries(f)
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(', ');
}

export function writeReport(results, file) {
  const m = results.machine;
  const figures = results.figures ?? [];
  const lines = [
    '# Forge benchmark results',
    '',
    `Written by \`node bench/run.mjs${results.quick ? ' --quick' : ''}${results.only ? ` --only ${results.only}` : ''}\` on ${results.date}` +
      ` (suite time ${results.durationSeconds} s${results.only ? ', partial run merged into the previous results' : ''}).`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGB} GB RAM, Node ${m.node}, ${m.platform}.`,
    '',
    'Goals are the targets on a 2-core machine; the CI budget is a generous regression limit (the run fails past it).',
    'Latencies are per operation (median / p95 over n samples); `judged on` says when the goal applies to another statistic.',
    '',
    '| benchmark | median | p95 | unit | n | goal | status | input |',
    '|---|---:|---:|---|---:|---|---|---|',
  ];
  for (const f of figures) {
    if (f.skipped) {
      lines.push(
        `| ${f.name} | – | – | – | – | – | skipped: ${String(f.skipped).replace(/\|/g, '\\|')} | ${inputText(f.input)} |`,
      );
      continue;
    }
    const judged = f.judgedOn ? ` (judged on ${f.judgedOn}${f.max !== undefined ? ` = ${f.max}` : ''})` : '';
    lines.push(
      `| ${f.name} | ${fmt(f.median)} | ${fmt(f.p95)} | ${f.unit} | ${f.n} | ${goalText(f.goal, f.unit)}${judged} | ${status(f)} | ${inputText(f.input)} |`,
    );
  }
  const withExtras = figures.filter((f) => !f.skipped && extras(f));
  if (withExtras.length) {
    lines.push('', '## Details', '');
    for (const f of withExtras) lines.push(`- **${f.name}**: ${extras(f)}`);
  }
  const over = figures.filter((f) => f.withinGoal === false);
  lines.push('', '## Over goal', '');
  if (!over.length) lines.push('None: every measured figure is within its goal.');
  for (const f of over) {
    lines.push(
      `- **${f.name}**: ${f.median} ${f.unit} (goal ${goalText(f.goal, f.unit)}). Limited by: ${f.limitedBy ?? 'not profiled yet'}`,
    );
  }
  const skipped = figures.filter((f) => f.skipped);
  if (skipped.length) {
    lines.push('', '## Skipped', '');
    for (const f of skipped) lines.push(`- ${f.name}: ${f.skipped}`);
  }
  if (results.crashed?.length)
    lines.push('', `Crashed benchmarks (see stderr of the run): ${results.crashed.join(', ')}`);
  lines.push('');
  fs.writeFileSync(file, lines.join('\n'));
}
