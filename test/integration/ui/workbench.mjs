// Driving code-server's workbench like a user: the command palette, editor tabs, and Forge's webview.
// Recipe (proven in /work/shared/real-vscode/ui.js): F1, fill the exact command title, click the matching row
// (never a blind Enter); the webview content lives in iframe.webview.ready -> iframe#active-frame.

export const EXTENSION_ID = 'forge-dev.forge-agent';

/** Waits until the workbench shows the workspace (remote connection + file service up). */
export async function waitForWorkbench(page, timeout = 90_000) {
  await page.locator('.monaco-workbench').waitFor({ timeout });
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout });
  // Webviews are served through the page's service worker; before it is ready they can stay blank.
  await page.evaluate(() => navigator.serviceWorker.ready);
}

/**
 * Runs a command from the palette by its full title ("Forge: Open Panel"). The palette computes its list when it
 * opens, so a just-activated extension's commands may be missing on the first try: close and reopen.
 */
export async function runCommand(page, title, { attempts = 10, log = () => {} } = {}) {
  for (let attempt = 1; ; attempt++) {
    const input = await openPalette(page, log);
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 5_000 });
      await row.click();
      await input.waitFor({ state: 'hidden', timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt >= attempts)
        throw new Error(`command "${title}" never appeared in the palette: ${e.message}`, { cause: e });
      log(`"${title}" not in the palette yet, retry ${attempt}`);
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * Opens the command palette. Keys go to the focused frame, and a webview's frame torn down with its extension host
 * (a crash) can keep the focus and swallow F1: the frame is blurred first, and the title bar's command center (the
 * same quick input) is the fallback.
 */
export async function openPalette(page, log = () => {}) {
  const input = page.locator('.quick-input-widget input');
  const shown = (timeout) =>
    input.waitFor({ state: 'visible', timeout }).then(
      () => true,
      () => false,
    );
  await page.evaluate(() => {
    const active = document.activeElement;
    if (active instanceof HTMLIFrameElement) active.blur();
  });
  await page.keyboard.press('F1');
  if (await shown(3_000)) return input;
  log('F1 opened no palette; using the command center');
  await page
    .locator('.command-center .command-center-center')
    .first()
    .click({ timeout: 5_000 })
    .catch(() => {});
  if (!(await shown(20_000))) throw new Error('the command palette did not open (F1, then the command center)');
  return input;
}

/** Forge's webview document (the sidebar chat view), as a FrameLocator. */
export function forgeWebview(page) {
  return page
    .frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`)
    .first()
    .frameLocator('iframe#active-frame');
}

/** The Forge panel's parts, by the selectors webview-ui/src renders (chrome.ts, items.ts). */
export function forgePanel(page) {
  const wv = forgeWebview(page);
  return {
    root: wv.locator('.app'),
    model: wv.locator('.header .model'),
    setupCard: wv.locator('.setup-card'),
    input: wv.locator('textarea.input[aria-label="Message Forge"]'),
    userBubble: (text) => wv.locator('.item-user .user-bubble', { hasText: text }),
    assistant: (text) => wv.locator('.item-assistant .md', { hasText: text }),
    // Rows show a verb ("Read"); the summary's title keeps the tool's name ("read_file: src/a.ts").
    toolCard: (name) => wv.locator('.item-tool .tool-card', { has: wv.locator(`.tool-head[title^="${name}"]`) }),
    pendingApproval: wv.locator('.approval-card.pending'),
    approveButton: wv.locator('.approval-card.pending vscode-button[data-act="approve"]'),
    approvalOutcome: wv.locator('.approval-card.resolved .approval-outcome'),
    /** An approved edit: the card goes, the tool's row reads "Edited src/x.ts +4 −1" (the link reopens the change). */
    resolvedEdit: wv.locator('.item-tool .tool-head', { has: wv.locator('.tool-edit') }),
    runEnd: (reason) => wv.locator(`.item-run_end .run-end.reason-${reason}`),
    progressText: wv.locator('.progress .progress-text'),
    stopButton: wv.locator('vscode-button[data-act="stop"]'),
    sendButton: wv.locator('vscode-button[data-act="send"]'),
    banner: wv.locator('.banner'),
  };
}

/** Forge: Open Panel, then waits for the chat input: the panel and its webview, ready to drive. */
export async function openForgePanel(page, { log } = {}) {
  const panel = forgePanel(page);
  await runCommand(page, 'Forge: Open Panel', log ? { log } : {});
  await panel.input.waitFor({ state: 'visible', timeout: 60_000 });
  return { panel, wv: forgeWebview(page) };
}

/** An editor tab in the workbench whose label contains `text`. */
export function editorTab(page, text) {
  return page.locator('.tabs-container .tab', { hasText: text });
}

/**
 * Drags the sash between the side bar and the editors to `width` (wider or narrower), so the panel is shown at the
 * widths the screenshots need. Cosmetic: a layout that does not follow is reported through `log`, not failed.
 */
export async function setSidebarWidth(page, width, log = () => {}) {
  const sidebar = page.locator('.part.sidebar');
  const box = await sidebar.boundingBox();
  if (!box || Math.abs(box.width - width) < 4) return;
  // The vertical sash whose centre is nearest the side bar's right edge (a plain drag from the edge can miss it).
  const sash = await page.evaluate((edge) => {
    let best;
    for (const el of document.querySelectorAll('.monaco-sash.vertical')) {
      const r = el.getBoundingClientRect();
      if (r.height < 100) continue;
      const d = Math.abs(r.left + r.width / 2 - edge);
      if (!best || d < best.d) best = { d, x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }
    return best;
  }, box.x + box.width);
  const x = sash && sash.d < 10 ? sash.x : box.x + box.width;
  const y = sash?.y ?? box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 10 * Math.sign(box.x + width - x), y, { steps: 2 });
  await page.mouse.move(box.x + width, y, { steps: 6 });
  await page.mouse.up();
  await page.waitForTimeout(500);
  const after = await sidebar.boundingBox();
  if (!after || Math.abs(after.width - width) > 12)
    log(`side bar is ${Math.round(after?.width ?? 0)} px wide (wanted ${width})`);
}

/** Makes the side bar at least `width` wide (never narrower). */
export async function widenSidebar(page, width, log = () => {}) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (box && box.width < width) await setSidebarWidth(page, width, log);
}
