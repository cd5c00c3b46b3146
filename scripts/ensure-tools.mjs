// Makes sure the programs the unit and integration tests run for real exist (Linux, Debian packages):
// bubblewrap, which contains every command Forge runs (hostile commands are run inside it), and ripgrep, the
// search backend the unit tests exercise (in VS Code Forge uses the ripgrep VS Code ships). macOS ships Seatbelt.
import { ensureDebPackage } from './lib/apt.mjs';

if (process.platform === 'linux') {
  ensureDebPackage({ tag: 'ensure-tools', binary: '/usr/bin/bwrap', pkg: 'bubblewrap' });
  ensureDebPackage({ tag: 'ensure-tools', binary: '/usr/bin/rg', pkg: 'ripgrep' });
  ensureDebPackage({ tag: 'ensure-tools', binary: '/usr/bin/curl', pkg: 'curl' }); // the network allow-list tests
}
