// Makes sure a Chromium for the webview tests exists at /usr/bin/chromium (Debian's `chromium` package).
import { ensureDebPackage } from './lib/apt.mjs';

ensureDebPackage({ tag: 'ensure-browser', binary: process.env.FORGE_CHROMIUM ?? '/usr/bin/chromium', pkg: 'chromium' });
