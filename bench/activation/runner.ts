// extensionTestsPath module for the activation benchmark, run inside the real VS Code extension host.
// Reads the activation time Forge reports (activate() returns { activationMs }); also times a fresh load of
// the bundle module (a lower bound that works even when the extension does not report activationMs).
import * as fs from 'node:fs';
import * as vscode from 'vscode';

const EXTENSION_ID = 'forge-dev.forge-agent';

export async function run(): Promise<void> {
  const out = process.env.FORGE_BENCH_ACTIVATION_OUT;
  const result: Record<string, unknown> = {};
  try {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    if (!ext) throw new Error(`extension ${EXTENSION_ID} not loaded`);
    result.wasActive = ext.isActive;
    const t0 = performance.now();
    const api = (await ext.activate()) as { activationMs?: unknown } | undefined;
    result.awaitActivateMs = performance.now() - t0;
    if (api && typeof api.activationMs === 'number') result.activationMs = api.activationMs;
    // Module evaluation of the bundle (vscode is resolved by the host's module interceptor). Not activate().
    const main = require.resolve(`${ext.extensionPath}/dist/extension.js`);
    delete require.cache[main];
    const t1 = performance.now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- what is timed is the bundle's own require()
    require(main);
    result.moduleLoadMs = performance.now() - t1;
    result.vscodeVersion = vscode.version;
  } catch (e) {
    result.error = e instanceof Error ? e.stack : String(e);
  }
  if (out) fs.writeFileSync(out, JSON.stringify(result));
}
