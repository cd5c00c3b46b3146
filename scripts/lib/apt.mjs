// Installs a Debian package with apt-get when its binary is missing (the test machines run as root).
// One lock for every installer, so parallel stages never run apt at the same time.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const LOCK = '/tmp/forge-apt.lock';

function run(tag, cmd, args) {
  console.log(`[${tag}] $ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} exited with ${r.status}`);
}

/** Exits the process with a clear message when the binary is missing and cannot be installed. */
export function ensureDebPackage({ tag, binary, pkg }) {
  if (existsSync(binary)) {
    console.log(`[${tag}] ${binary} present; nothing to do.`);
    return;
  }
  if (process.getuid?.() !== 0) {
    console.error(`[${tag}] ${binary} missing and not root: run "sudo apt-get install -y ${pkg}".`);
    process.exit(1);
  }
  console.log(`[${tag}] ${binary} missing; installing Debian package "${pkg}" via apt-get.`);
  const hasFlock = spawnSync('which', ['flock']).status === 0;
  const apt = (args) => (hasFlock ? run(tag, 'flock', [LOCK, 'apt-get', ...args]) : run(tag, 'apt-get', args));
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', pkg]);
  if (!existsSync(binary)) {
    console.error(`[${tag}] apt-get finished but ${binary} is still missing.`);
    process.exit(1);
  }
  console.log(`[${tag}] installed ${binary}.`);
}
