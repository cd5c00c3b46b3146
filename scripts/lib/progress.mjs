// A long step said before it starts (what, roughly how long), with a progress line every few seconds while it runs
// (time so far and, when the step fills a folder, how much it holds), so a first `npm start` is never silent.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Bytes under `dir` (0 when it does not exist); symlinks are not followed. */
export function folderBytes(dir) {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        try {
          total += fs.statSync(p).size;
        } catch {
          // removed while counting
        }
      }
    }
  }
  return total;
}

/** "12 s", "1 min 30 s", "3 min": how long a step has taken, in words a person reads at a glance. */
export function formatElapsed(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const rest = s % 60;
  return rest ? `${Math.floor(s / 60)} min ${rest} s` : `${s / 60} min`;
}

const mb = (n) => `${Math.round(n / 1e6)} MB`;

/** The lines a step prints: before it starts, every few seconds while it runs, and when it is done. */
export const stepLines = {
  start: (what, estimate) => `${what}${estimate ? ` (${estimate})` : ''}...`,
  tick: (what, ms, bytes) => `  ... ${what}: ${formatElapsed(ms)}${bytes === undefined ? '' : `, ${mb(bytes)} so far`}`,
  done: (what, ms) => `${what}: done in ${formatElapsed(ms)}`,
};

/**
 * Runs `cmd args` without a terminal of its own, saying first `what` and `estimate` ("about 1-3 minutes"), then every
 * `everyMs` the time so far and the size of `watchDir`; resolves with its output, rejects with its tail on failure.
 */
export function runWithProgress(
  cmd,
  args,
  { what, estimate, watchDir, everyMs = 5000, log = console.log, ...opts } = {},
) {
  const started = Date.now();
  log(stepLines.start(what, estimate));
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const tick = setInterval(
    () => log(stepLines.tick(what, Date.now() - started, watchDir ? folderBytes(watchDir) : undefined)),
    everyMs,
  );
  return new Promise((resolve, reject) => {
    const done = (err) => {
      clearInterval(tick);
      if (err) reject(err);
      else {
        log(stepLines.done(what, Date.now() - started));
        resolve(out);
      }
    };
    child.on('error', (e) => done(new Error(`${cmd} ${args.join(' ')} could not start: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return done();
      const tail = out.trim().split('\n').slice(-40).join('\n');
      done(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}\n${tail}`));
    });
  });
}
