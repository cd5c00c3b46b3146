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
import { execFileSync } from 'node:child_process';
import { fingerprint } from '../src/node/command-changes';
import { emit, figure, log, QUICK } from './lib/harness';
import { NodeTasksIO } from '../src/node/tasks-io';

const FILES_PER_STEP = 3;
/** Every edit goes to a file not edited before (both of its contents are new blobs): the dearest case. */
let nextFile = 0;

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
    read: async (p) =>
      fsp.readFile(p, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e))),
    write: (p, c) => fsp.writeFile(p, c),
    remove: (p) => fsp.rm(p, { force: true }),
  };
}

/** Runs `steps` steps of FILES_PER_STEP edits; returns the journal time of each step (ms). */
async function steps(
  journal: EditJournal,
  taskId: string,
  files: string[],
  count: number,
  perStep = FILES_PER_STEP,
): Promise<number[]> {
  const times: number[] = [];
  for (let s = 0; s < count; s++) {
    let spent = 0;
    for (let f = 0; f < perStep; f++) {
      const file = files[nextFile++ % files.length]!;
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
    // Creating the workspaces leaves a lot of dirty pages: flush them so the journal's fsyncs do not pay for them.
    execFileSync('sync');
    const journal = await EditJournal.open(path.join(root, 'store'), { io: new NodeTasksIO() });
    const n = QUICK ? 20 : 60;
    await steps(journal, 'warm', small, 5);
    // Interleaved, so the disk's mood (other processes' writes) hits both workspaces alike. A typical step edits
    // one file; three-file steps show the cost grows with the files edited, not with the workspace.
    const bigTimes: number[] = [];
    const smallTimes: number[] = [];
    const big3Times: number[] = [];
    for (let s = 0; s < n; s++) {
      bigTimes.push(...(await steps(journal, 'big', big, 1, 1)));
      smallTimes.push(...(await steps(journal, 'small', small, 1, 1)));
      big3Times.push(...(await steps(journal, 'big3', big, 1, 3)));
    }
    const input = {
      workspaceFiles: bigN,
      filesEditedPerStep: 1,
      steps: n,
      edits: 'each to a file not edited before (2 new blobs)',
      disk: 'tmpdir; blobs written atomically and the log appended with fsync',
    };
    const f = emit(
      figure(
        { name: 'checkpoints.cost_per_step_50k_files', unit: 'ms', input, goal: { max: 10 }, budget: { max: 50 } },
        bigTimes,
      ),
    );
    const g = emit(
      figure(
        {
          name: 'checkpoints.cost_per_step_1k_files',
          unit: 'ms',
          input: { ...input, workspaceFiles: 1_000 },
          goal: { max: 10 },
          budget: { max: 50 },
        },
        smallTimes,
      ),
    );
    const g3 = emit(
      figure(
        {
          name: 'checkpoints.cost_per_step_3_files_50k',
          unit: 'ms',
          input: { ...input, filesEditedPerStep: 3 },
          goal: { max: 30 },
          budget: { max: 150 },
          limitedBy: 'fsync: 3 per edited file (two blobs, one log line)',
        },
        big3Times,
      ),
    );
    log(
      `checkpoint per step: ${f.median} ms on ${bigN} files, ${g.median} ms on 1,000 files (1 file edited); ${g3.median} ms with 3 files edited`,
    );

    // Restore a 20-step task to its first checkpoint.
    const restoreTimes: number[] = [];
    const reps = QUICK ? 3 : 7;
    for (let r = 0; r < reps; r++) {
      const taskId = `restore-${r}`;
      await steps(journal, taskId, big, 20);
      const t0 = performance.now();
      const cps = deriveCheckpoints(await journal.entries(taskId));
      const out = await restoreToCheckpoint(journal, taskId, cps[0]!, diskFs(), async () => []);
      restoreTimes.push(performance.now() - t0);
      if (out.conflicts.length || out.skipped.length)
        throw new Error(`unexpected conflicts: ${JSON.stringify(out.conflicts)}`);
    }
    const h = emit(
      figure(
        {
          name: 'checkpoints.restore_20_steps',
          unit: 'ms',
          input: { steps: 20, filesEditedPerStep: FILES_PER_STEP, workspaceFiles: bigN },
          goal: { max: 1000 },
          budget: { max: 3000 },
        },
        restoreTimes,
      ),
    );
    log(`restore of a 20-step task: ${h.median} ms`);

    // What telling a command's changed files costs per command (before + after fingerprints are two of these).
    const walkTimes: number[] = [];
    let walkGaveUp = false;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      walkGaveUp = (await fingerprint([path.join(root, 'big')])) === undefined;
      walkTimes.push(performance.now() - t0);
    }
    emit(
      figure(
        {
          name: 'checkpoints.command_fingerprint_walk_50k',
          unit: 'ms',
          input: { workspaceFiles: bigN, git: false, gaveUp: walkGaveUp },
          goal: { max: 1000 },
          extra: { note: 'bounded: gives up past 5,000 files or 0.8 s, then is not retried for 10 min' },
        },
        walkTimes,
      ),
    );
    const repo = path.join(root, 'small');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    await fsp.writeFile(small[0]!, 'dirty');
    const gitTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await fingerprint([repo]);
      gitTimes.push(performance.now() - t0);
    }
    const gf = emit(
      figure(
        {
          name: 'checkpoints.command_fingerprint_git_1k',
          unit: 'ms',
          input: { workspaceFiles: 1_000, git: true },
          goal: { max: 200 },
        },
        gitTimes,
      ),
    );
    log(
      `command change detection: walk ${walkTimes.map(Math.round).join('/')} ms on ${bigN} files (gave up: ${walkGaveUp}), git status ${gf.median} ms on 1,000 files`,
    );
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
