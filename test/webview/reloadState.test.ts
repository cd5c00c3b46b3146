// Issue 26, seen in the real VS Code after a window reload (test-results/reload-tokens-*.png): the panel's first
// snapshot comes before the host has resolved the configured model, and the panel said "Set up a model", opened the
// setup form and checked an empty endpoint, for a model that was there a second later.
import { strict as assert } from 'node:assert';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview after a reload, before the model is resolved', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('asks nothing: no setup form, no "Set up a model", no check; then the model once it is known', async () => {
    await p.clearPosted();
    // The bridge's status before the host's first answer: not configured, and no provider or problem named.
    await p.host(state({ provider: { configured: false } }));
    await p.page.waitForTimeout(100);
    assert.equal(await p.page.locator('.setup-card').isVisible(), false, 'no setup form');
    const header = await p.page.locator('.header .model').innerText();
    assert.doesNotMatch(header, /Set up a model/, 'the header asks for nothing');
    assert.match(header, /Loading the model/, 'it says the model is on its way');
    const checks = (await p.posted()).filter((m) => m.type === 'check_provider');
    assert.deepEqual(checks, [], 'no Check connection of an empty form');

    await p.host({
      type: 'provider_status',
      provider: { configured: true, provider: 'OpenAI-compatible endpoint', model: 'test-model' },
    });
    await p.page.locator('.header .model', { hasText: 'test-model' }).waitFor({ timeout: 5_000 });
    assert.equal(await p.page.locator('.setup-card').isVisible(), false);
  });

  it('a model that cannot be used still opens the form', async () => {
    await p.host(state({ provider: { configured: false, provider: 'OpenAI', problem: 'No API key for OpenAI.' } }));
    assert.equal(await p.page.locator('.setup-card').isVisible(), true);
    assert.match(await p.page.locator('.header .model').innerText(), /Set up a model/);
  });
});
