#!/usr/bin/env node
// Screenshots for looking (and a few checks that the flows work), driven like a person in the real VS Code:
// a first run without a model (the inline setup form: pick the provider, type the base URL, Check connection,
// Save), the welcome state, a finished task with tool rows (a command and an edit approved from their cards),
// a model failure with Retry / Open settings, the in-panel History and Explain Selection from the editor's
// Forge context submenu — in the light, dark and high-contrast
// themes at 300 px and 600 px side bars. Writes test-results/ui-<state>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/ui-shots.mjs
//   FORGE_SHOTS_THEMES=hc,dark   only these themes (light, dark, hc)
//   FORGE_SHOTS_WIDTHS=300       only these side-bar widths (default 300,600)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, runCommand, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const ALL_THEMES = { light: 'Default Light Modern', dark: 'Default Dark Modern', hc: 'Default High Contrast' };
const THEMES = Object.fromEntries(
  Object.entries(ALL_THEMES).filter(
    ([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k),
  ),
);
const WIDTHS = (process.env.FORGE_SHOTS_WIDTHS ?? '300,600').split(',').map(Number);

const SEARCH = "  return 'Hello, ' + name + '!';";
const REPLACE = "  return 'Hi, ' + name + '!';";
const TASK = 'Make the greeting in src/greet.js say Hi instead of Hello, and check it runs.';
const task = [
  {
    text: 'I will read src/greet.js first.',
    toolCalls: [{ id: 'u1', name: 'read_file', args: { path: 'src/greet.js' } }],
  },
  {
    text: 'Here is the change.',
    toolCalls: [
      { id: 'u2', name: 'apply_diff', args: { path: 'src/greet.js', blocks: [{ search: SEARCH, replace: REPLACE }] } },
    ],
  },
  {
    toolCalls: [
      {
        id: 'u3',
        name: 'execute_command',
        args: { command: "node -e \"console.log(require('./src/greet.js').greetWorld('Ada'))\"" },
      },
    ],
  },
  {
    toolCalls: [
      {
        id: 'u4',
        name: 'task_completion',
        args: { result: 'The greeting in `src/greet.js` now says **Hi**; running it prints `Hi, Ada!`.' },
      },
    ],
  },
];
// Retries 1 + 3, then the run fails: one status line that updates, then the failure with Retry / Open settings.
const outage = Array.from({ length: 4 }, () => ({ fault: 'http', status: 503 }));
const question = [
  {
    text: '`src/math.js` exports one function:\n\n```js\nfunction add(a, b) {\n  return a + b;\n}\n```\n\nIt is used by the tests only.',
  },
];

async function snap(page, state, label) {
  for (const width of WIDTHS) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `ui-${state}-${label}-${width}.png`);
    // The activity bar, the side bar and a strip of the editor: the panel at the size a person sees it.
    await page.screenshot({
      path: file,
      clip: { x: 0, y: 0, width: Math.round((box?.x ?? 48) + (box?.width ?? width) + 40), height: 900 },
    });
    console.log(`[shots] ${file}`);
  }
}

async function pickTheme(page, label) {
  const cls = { light: 'vs', dark: 'vs-dark', hc: 'hc-black' }[label];
  const pick = { light: 'Light Modern', dark: 'Dark Modern', hc: 'Dark High Contrast' }[label];
  await pickColorTheme(page, pick, cls);
}

async function shoot(theme, label) {
  const session = await startShotSession({
    repo,
    userSettings: {
      'workbench.colorTheme': theme,
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
    },
    llmOptions: { models: ['test-model', 'test-model-large'] },
    configureModel: false, // the first run sets one up
  });
  const { page, llm } = session;
  try {
    const { panel, wv } = await openForgePanel(page);
    await pickTheme(page, label);

    // 1. First run: no model. The header names none; the setup form asks for one.
    await panel.setupCard.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(
      await wv.locator('.header .needs-setup').count(),
      1,
      'the header says "Set up a model", not a model name',
    );
    await wv.locator('.setup-card select').selectOption('openai-compatible');
    await wv.locator('.setup-card input[type="url"]').fill(`${llm.url}/v1`);
    await wv.locator('.setup-card vscode-button[data-act="setup_check"]').click();
    await wv.locator('.setup-card .check-result.good').waitFor({ timeout: 20_000 });
    await wv.locator('.setup-card input[list]').fill('test-model');
    await snap(page, 'setup', label);
    await wv.locator('.setup-card vscode-button[data-act="setup_save"]').click();
    await panel.setupCard.waitFor({ state: 'hidden', timeout: 30_000 });

    // 2. The welcome state: what Forge does, example tasks.
    await wv.locator('.welcome').waitFor({ state: 'visible', timeout: 15_000 });
    await snap(page, 'welcome', label);

    // 3. A task: read, an edit approved from the card, a command approved from the card, done.
    llm.script(task);
    await panel.input.fill(TASK);
    await panel.input.press('Enter');
    for (let i = 0; i < 2; i++) {
      await panel.approveButton.first().waitFor({ timeout: 30_000 });
      if (i === 0) await snap(page, 'approval', label);
      // Wait for this card to go before looking for the next (under load the answered card lingers a moment).
      const id = await panel.approveButton.first().getAttribute('data-request-id');
      await panel.approveButton.first().click();
      await wv
        .locator(`.approval-card.pending vscode-button[data-request-id="${id}"]`)
        .first()
        .waitFor({ state: 'detached', timeout: 30_000 });
    }
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    await page.keyboard.press('Escape');
    await snap(page, 'task', label);
    // The command ran in the Forge terminal (shown, without focus): the whole window, terminal panel included.
    await page
      .locator('.part.panel .terminal-tab, .part.panel .single-terminal-tab, .part.panel .xterm')
      .first()
      .waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, `ui-terminal-${label}.png`) });
    console.log(`[shots] ${path.join(shots, `ui-terminal-${label}.png`)}`);

    // 4. The endpoint fails: one retry line, then the failure with Retry / Open settings.
    llm.script(outage);
    await panel.input.fill('Also add a farewell function.');
    await panel.input.press('Enter');
    await panel.runEnd('error').waitFor({ timeout: 60_000 });
    assert.equal(
      await wv.locator('.item-run_end vscode-button[data-action="retry"]').count(),
      1,
      'Retry on the failure',
    );
    await snap(page, 'error', label);

    // 5. A second task answered in one reply, then the History (the view title's History button opens it here).
    await runCommand(page, 'Forge: New Task');
    llm.script(question);
    await panel.input.fill('What does src/math.js export?');
    await panel.input.press('Enter');
    await panel.runEnd('converse').waitFor({ timeout: 30_000 });
    await snap(page, 'answer', label);
    await runCommand(page, 'Forge: Show Task History');
    await wv.locator('.history').waitFor({ state: 'visible', timeout: 15_000 });
    await snap(page, 'history', label);
    await page.keyboard.press('Escape');

    // 6. An editor action from the context menu's Forge submenu: a new task with a short user line.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('greet.js');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'greet.js' }).first().click();
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.waitFor({ timeout: 15_000 });
    await editor.click();
    await page.keyboard.press('Control+A');
    llm.script([{ text: '`greetWorld(name)` returns a greeting string for `name`; it is exported for the tests.' }]);
    await editor.click({ button: 'right' });
    await page
      .locator('.monaco-menu .action-label', { hasText: /^Forge$/ })
      .first()
      .hover({ timeout: 10_000 });
    // Into the submenu with the keyboard (a mouse path across the menu can close it): its first item is Explain.
    await page.keyboard.press('ArrowRight');
    await page
      .locator('.monaco-menu .action-item.focused .action-label', { hasText: 'Explain Selection' })
      .first()
      .waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await panel.userBubble('Explain selection in src/greet.js:1-').waitFor({ timeout: 30_000 });
    await panel.runEnd('converse').waitFor({ timeout: 30_000 });
    await snap(page, 'explain', label);
  } catch (err) {
    const page = browser?.pages()[0];
    if (page) await page.screenshot({ path: path.join(shots, `ui-failed-${label}.png`) }).catch(() => {});
    throw err;
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
let failed = 0;
for (const [label, theme] of Object.entries(THEMES)) {
  try {
    await shoot(theme, label);
  } catch (err) {
    failed++;
    console.error(`[shots] ${label} failed: ${err?.stack ?? err}`);
  }
}
process.exit(failed ? 1 : 0);
