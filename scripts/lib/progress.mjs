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

const mb = (n) => `${Math.round(n / 1e6)} MB`;
const secs = (ms) => `${Math.round(ms / 1000)} s`;

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
  log(`${what}${estimate ? ` (${estimate})` : ''}...`);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const tick = setInterval(() => {
    const size = watchDir ? `, ${mb(folderBytes(watchDir))} so far` : '';
    log(`  ... ${what}: ${secs(Date.now() - started)}${size}`);
  }, everyMs);
  return new Promise((resolve, reject) => {
    const done = (err) => {
      clearInterval(tick);
      if (err) reject(err);
      else {
        log(`${what}: done in ${secs(Date.now() - started)}`);
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
