#!/usr/bin/env node
// Not a test: records the CSS variables, default styles and body class the real VS Code (code-server) gives Forge's
// webview in each theme kind, into test/webview/themes/<kind>.css, so the webview tests can check contrast in every
// theme without starting a workbench. Re-run when code-server's version changes.
//
//   node esbuild.mjs && node scripts/screenshots/theme-vars.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forgeWebview, openForgePanel } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { readMarker } from '../setup-real-vscode.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(repo, 'test/webview/themes');
// kind -> [theme label in the picker, workbench class, the webview body's class]
const KINDS = {
  light: ['Light Modern', 'vs', 'vscode-light'],
  dark: ['Dark Modern', 'vs-dark', 'vscode-dark'],
  'hc-dark': ['Dark High Contrast', 'hc-black', 'vscode-high-contrast'],
  'hc-light': ['Light High Contrast', 'hc-light', 'vscode-high-contrast-light'],
};

fs.mkdirSync(out, { recursive: true });
const session = await startShotSession({ repo, prefix: 'forge-themevars-' });
try {
  const { page } = session;
  await openForgePanel(page);
  const wv = forgeWebview(page);
  for (const [kind, [label, cls, bodyClass]] of Object.entries(KINDS)) {
    await pickColorTheme(page, label, cls);
    await wv.locator(`body.${bodyClass}`).waitFor({ state: 'attached', timeout: 30_000 });
    const got = await wv.locator('html').evaluate(() => {
      const vars = [];
      const style = document.documentElement.style;
      for (let i = 0; i < style.length; i++) {
        const name = style.item(i);
        if (name.startsWith('--vscode-')) vars.push([name, style.getPropertyValue(name).trim()]);
      }
      const defaults = document.getElementById('_defaultStyles')?.textContent ?? '';
      return { vars, bodyClass: document.body.className, defaults };
    });
    const m = readMarker();
    const css =
      `/* ${label}: the variables VS Code ${m?.vscode ?? ''} (code-server ${m?.codeServer ?? ''}) sets on Forge's webview.\n` +
      `   Recorded by scripts/screenshots/theme-vars.mjs. body class: ${got.bodyClass} */\n:root {\n` +
      got.vars.map(([n, v]) => `  ${n}: ${v};`).join('\n') +
      '\n}\n' +
      `/* VS Code's default webview styles (#_defaultStyles), as injected. */\n${got.defaults.trim()}\n`;
    fs.writeFileSync(path.join(out, `${kind}.css`), css);
    console.log(`[theme-vars] ${kind}: ${got.vars.length} variables, body class "${got.bodyClass}"`);
  }
} finally {
  await session.close();
}
process.exit(0);
