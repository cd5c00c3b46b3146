// Serves the built webview bundle with the provider's exact HTML + CSP on 127.0.0.1 and drives it in headless
// Chromium. acquireVsCodeApi is stubbed to record what the webview posts; host messages are window.postMessage.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildWebviewHtml, contentSecurityPolicy, makeNonce } from '../../src/panel/html';
import type { HostMessage, WebviewMessage } from '../../src/protocol/messages';

export const ROOT = resolve(__dirname, '../..');
const DIST = join(ROOT, 'dist', 'webview');
export const CHROMIUM = process.env.FORGE_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function newestMtime(dir: string): number {
  let max = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    max = Math.max(max, name.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return max;
}

/** Uses dist/webview when it is up to date; otherwise builds just the webview with esbuild.mjs's options. */
export async function ensureBundle(): Promise<void> {
  const out = join(DIST, 'main.js');
  const src = Math.max(newestMtime(join(ROOT, 'webview-ui', 'src')), newestMtime(join(ROOT, 'src', 'protocol')));
  if (existsSync(out) && existsSync(join(DIST, 'main.css')) && statSync(out).mtimeMs >= src) return;
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    bundle: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    entryPoints: { main: 'webview-ui/src/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.css': 'css', '.ttf': 'file' },
    assetNames: '[name]',
  });
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.map': 'application/json',
  '.html': 'text/html',
  '.ttf': 'font/ttf',
};

export interface Harness {
  origin: string;
  context: BrowserContext;
  /** The theme kind its pages get (default: the dark stand-in, theme.css). */
  theme?: ThemeKind;
  close(): Promise<void>;
}

/** The four theme kinds, recorded from the real VS Code in themes/<kind>.css (scripts/screenshots/theme-vars.mjs). */
export const THEME_KINDS = ['light', 'dark', 'hc-dark', 'hc-light'] as const;
export type ThemeKind = (typeof THEME_KINDS)[number];
/** The body classes VS Code gives a webview in each theme kind. */
const BODY_CLASS: Record<ThemeKind, string> = {
  light: 'vscode-light',
  dark: 'vscode-dark',
  'hc-dark': 'vscode-high-contrast',
  'hc-light': 'vscode-high-contrast vscode-high-contrast-light',
};

export async function startHarness(opts: { theme?: ThemeKind } = {}): Promise<Harness> {
  await ensureBundle();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      const nonce = makeNonce();
      const html = buildWebviewHtml({
        cspSource: origin,
        scriptUri: `${origin}/dist/webview/main.js`,
        styleUri: `${origin}/dist/webview/main.css`,
        nonce,
      })
        // VS Code injects its theme variables; the test page links a dark theme instead.
        .replace(
          '<link rel="stylesheet"',
          `<link rel="stylesheet" href="${origin}/theme.css">\n<link rel="stylesheet"`,
        );
      res.writeHead(200, {
        'content-type': 'text/html',
        'content-security-policy': contentSecurityPolicy(origin, nonce),
      });
      res.end(html);
      return;
    }
    const file =
      url.pathname === '/theme.css'
        ? join(__dirname, opts.theme ? `themes/${opts.theme}.css` : 'theme.css')
        : url.pathname.startsWith('/dist/webview/')
          ? join(DIST, url.pathname.slice('/dist/webview/'.length))
          : '';
    if (!file || (!file.startsWith(__dirname) && !file.startsWith(DIST)) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const userDataDir = mkdtempSync(join(tmpdir(), 'forge-webview-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 420, height: 860 },
    deviceScaleFactor: 1,
  });
  return {
    origin,
    context,
    ...(opts.theme ? { theme: opts.theme } : {}),
    async close() {
      await context.close();
      await new Promise((r) => server.close(r));
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface PanelPage {
  page: Page;
  errors: string[];
  warnings: string[];
  /** Sends a host -> webview message exactly as VS Code delivers it (a window message event). */
  host(msg: HostMessage | unknown): Promise<void>;
  posted(): Promise<WebviewMessage[]>;
  clearPosted(): Promise<void>;
  cspViolations(): Promise<string[]>;
}

/**
 * The locator's text once it matches `re` (patches render on the next frames, later on a loaded machine); the
 * last text seen when it never does, so the caller's assert.match reports what was there.
 */
export async function eventuallyText(
  locator: { innerText(): Promise<string> },
  re: RegExp,
  timeoutMs = 5000,
): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = await locator.innerText().catch(() => '');
    if (re.test(text) || Date.now() > end) return text;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function openPanel(h: Harness, savedState?: unknown): Promise<PanelPage> {
  const page = await h.context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  // A string, not a function: tsx would inject helpers (__name) the page does not have.
  await page.addInitScript(`(() => {
    const w = window;
    w.__posted = [];
    w.__csp = [];
    w.__state = ${JSON.stringify(savedState ?? null)};
    const themeClass = ${JSON.stringify(h.theme ? BODY_CLASS[h.theme] : '')};
    if (themeClass) document.addEventListener('DOMContentLoaded', () => document.body.classList.add(...themeClass.split(' ')));
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
    w.acquireVsCodeApi = () => ({
      postMessage: (m) => w.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => w.__state,
      setState: (s) => { w.__state = s; },
    });
  })();`);
  await page.goto(`${h.origin}/index.html`);
  await page.waitForFunction(() =>
    ((window as unknown as { __posted: { type: string }[] }).__posted ?? []).some((m) => m.type === 'ready'),
  );
  return {
    page,
    errors,
    warnings,
    host: async (msg) => {
      await page.evaluate((m) => window.postMessage(m, '*'), msg as object);
      // Let the message event and two animation frames run (patches are coalesced into the next frame).
      await page.evaluate(
        () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))),
      );
    },
    posted: () => page.evaluate(() => (window as unknown as { __posted: WebviewMessage[] }).__posted),
    clearPosted: () =>
      page.evaluate(() => {
        (window as unknown as { __posted: unknown[] }).__posted = [];
      }),
    cspViolations: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp),
  };
}

/**
 * Mocha hooks every panel suite shares: one harness per suite, a fresh panel page per test (handed to `use`), and
 * after a passing test no CSP violation and no page error (unless `checkPage` is false).
 */
export function usePanel(
  use: (p: PanelPage, h: Harness) => void,
  opts: { checkPage?: boolean; theme?: ThemeKind } = {},
): void {
  let h: Harness;
  let p: PanelPage;
  before(async () => {
    h = await startHarness(opts.theme ? { theme: opts.theme } : {});
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    p = await openPanel(h);
    use(p, h);
  });
  afterEach(async function () {
    const csp = opts.checkPage === false ? [] : await p.cspViolations();
    await p.page.close();
    if (opts.checkPage !== false && this.currentTest?.state === 'passed') {
      assert.deepEqual(csp, [], 'no CSP violations');
      assert.deepEqual(p.errors, [], 'no page errors');
    }
  });
}
