// Makes sure a Chromium for the webview e2e tests exists at /usr/bin/chromium.
// Installs Debian's `chromium` package with apt-get when missing (we run as root); otherwise does nothing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CHROMIUM = process.env.FORGE_CHROMIUM ?? '/usr/bin/chromium';
const LOCK = '/tmp/forge-apt.lock';

function run(cmd, args) {
  console.log(`[ensure-browser] $ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} exited with ${r.status}`);
}

if (existsSync(CHROMIUM)) {
  console.log(`[ensure-browser] ${CHROMIUM} present; nothing to do.`);
} else {
  if (process.getuid?.() !== 0) {
    console.error(`[ensure-browser] ${CHROMIUM} missing and not root: run "sudo apt-get install -y chromium".`);
    process.exit(1);
  }
  console.log(`[ensure-browser] ${CHROMIUM} missing; installing Debian package "chromium" via apt-get.`);
  const hasFlock = spawnSync('which', ['flock']).status === 0;
  const apt = (args) => (hasFlock ? run('flock', [LOCK, 'apt-get', ...args]) : run('apt-get', args));
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM)) {
    console.error(`[ensure-browser] apt-get finished but ${CHROMIUM} is still missing.`);
    process.exit(1);
  }
  console.log(`[ensure-browser] installed ${CHROMIUM}.`);
}
