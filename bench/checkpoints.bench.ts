// Checkpoints: what a step that changed files costs (the edit journal's record of its edits: hash, blob, log
// line, on a real disk with fsync) on a 50,000-file workspace vs a 1,000-file one — it must depend on the files
// edited, not the workspace — and the time to restore a 20-step task to its first checkpoint (derive the
// checkpoints from the journal, then undo 19 steps' edits on disk).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { deriveCheckpoints, restoreToCheckpoint } from '../src/core/tasks/checkpoints';
import { EditJournal, type JournalFs } from '../src/core/tasks/journal';
import { emit, figure, log, QUICK } from './lib/harness';

const FILES_PER_STEP = 3;

async function makeWorkspace(root: string, files: number): Promise<string[]> {
  const paths: string[] = [];
  const perDir = 100;
  for (let d = 0; d * perDir < files; d++) {
    const dir = path.join(root, `pkg${d}`, 'src');
    await fsp.mkdir(dir, { recursive: true });
    const batch: Promise<void>[] = [];
    for (let i = 0; i < perDir && d * perDir + i < files; i++) {
      const p = path.join(dir, `m${i}.ts`);
      paths.push(p);
      batch.push(fsp.writeFile(p, `export const v${i} = ${i};\n`.repeat(20)));
    }
    await Promise.all(batch);
  }
  return paths;
}

function diskFs(): JournalFs {
  return {
    read: async (p) => fsp.readFile(p, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e))),
    write: (p, c) => fsp.writeFile(p, c),
    remove: (p) => fsp.rm(p, { force: true }),
  };
}

/** Runs `steps` steps of FILES_PER_STEP edits; returns the journal time of each step (ms). */
async function steps(journal: EditJournal, taskId: string, files: string[], count: number, offset = 0): Promise<number[]> {
  const times: number[] = [];
  for (let s = 0; s < count; s++) {
    let spent = 0;
    for (let f = 0; f < FILES_PER_STEP; f++) {
      const file = files[(offset + s * 7 + f * 13) % files.length]!;
      const before = await fsp.readFile(file, 'utf8');
      const after = `${before}// step ${s} edit ${f}\n`;
      await fsp.writeFile(file, after); // the tool's write (not the checkpoint's cost)
      const t0 = performance.now();
      await journal.record({ taskId, path: file, before, after, toolCallId: `${taskId}-s${s}-c${f}` });
      spent += performance.now() - t0;
    }
    times.push(spent);
  }
  return times;
}

async function main() {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-bench-cp-'));
  try {
    const bigN = QUICK ? 10_000 : 50_000;
    const big = await makeWorkspace(path.join(root, 'big'), bigN);
    const small = await makeWorkspace(path.join(root, 'small'), 1_000);
    const journal = await EditJournal.open(path.join(root, 'store'));
    const n = QUICK ? 20 : 60;
    await steps(journal, 'warm', small, 5);
    const bigTimes = await steps(journal, 'big', big, n);
    const smallTimes = await steps(journal, 'small', small, n);
    const input = { workspaceFiles: bigN, filesEditedPerStep: FILES_PER_STEP, steps: n, disk: 'tmpdir, fsync on every log append' };
    const f = emit(figure({ name: 'checkpoints.cost_per_step_50k_files', unit: 'ms', input, goal: { max: 10 }, budget: { max: 50 } }, bigTimes));
    const g = emit(figure({ name: 'checkpoints.cost_per_step_1k_files', unit: 'ms', input: { ...input, workspaceFiles: 1_000 }, goal: { max: 10 }, budget: { max: 50 } }, smallTimes));
    log(`checkpoint per step: ${f.median} ms on ${bigN} files, ${g.median} ms on 1,000 files (${FILES_PER_STEP} files edited per step)`);

    // Restore a 20-step task to its first checkpoint.
    const restoreTimes: number[] = [];
    const reps = QUICK ? 3 : 7;
    for (let r = 0; r < reps; r++) {
      const taskId = `restore-${r}`;
      await steps(journal, taskId, big, 20, r * 1000);
      const t0 = performance.now();
      const cps = deriveCheckpoints(await journal.entries(taskId));
      const out = await restoreToCheckpoint(journal, taskId, cps[0]!, diskFs(), async () => []);
      restoreTimes.push(performance.now() - t0);
      if (out.conflicts.length || out.skipped.length) throw new Error(`unexpected conflicts: ${JSON.stringify(out.conflicts)}`);
    }
    const h = emit(figure({ name: 'checkpoints.restore_20_steps', unit: 'ms', input: { steps: 20, filesEditedPerStep: FILES_PER_STEP, workspaceFiles: bigN }, goal: { max: 1000 }, budget: { max: 3000 } }, restoreTimes));
    log(`restore of a 20-step task: ${h.median} ms`);
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
