// Makes sure bubblewrap exists on Linux: Forge contains every command in it, and the unit and integration tests
// run hostile commands inside it for real. Other platforms have nothing to install (macOS ships Seatbelt).
import { ensureDebPackage } from './lib/apt.mjs';

if (process.platform === 'linux') ensureDebPackage({ tag: 'ensure-sandbox', binary: '/usr/bin/bwrap', pkg: 'bubblewrap' });
