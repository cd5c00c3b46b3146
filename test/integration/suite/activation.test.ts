import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { COMMAND_IDS } from '../../../src/protocol/commands';
import { readSettings } from '../../../src/host/settings';
import { activateForge, EXTENSION_ID, waitFor } from '../helpers';
import { setSetting } from './forge-api';

describe('Forge activation in a real VS Code', () => {
  it('activates and registers every palette command', async () => {
    await activateForge();
    assert.ok(vscode.extensions.getExtension(EXTENSION_ID)?.isActive);
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = COMMAND_IDS.filter((id) => !all.has(id));
    assert.deepStrictEqual(missing, []);
  });

  it('contributes the Forge activity bar container with the chat view', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    // VS Code generates these commands for a contributed view container and view.
    assert.ok(all.has('workbench.view.extension.forge'), 'view container command');
    assert.ok(all.has('forge.chatView.focus'), 'chat view focus command');
    await vscode.commands.executeCommand('workbench.view.extension.forge');
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    assert.strictEqual(pkg.contributes.views.forge[0].id, 'forge.chatView');
  });

  it('reads forge.* settings with the workspace values and defaults', () => {
    const s = readSettings();
    assert.deepStrictEqual(s.autoApprove, { read: true, write: false, execute: false, network: false });
    assert.strictEqual(s.maxIterations, undefined);
    if (process.env.FORGE_TEST_LLM_URL) {
      assert.strictEqual(s.provider, 'openai-compatible');
      // This test's own copy of the settings module has no consent state (the extension's has): a workspace
      // endpoint is not taken there, which is the fail-closed default. The workspace value itself is there.
      assert.strictEqual(
        vscode.workspace.getConfiguration('forge').inspect('baseUrl')?.workspaceValue,
        `${process.env.FORGE_TEST_LLM_URL}/v1`,
      );
    }
  });

  it("does not take a workspace's widening settings without the user's consent (narrower ones apply)", async () => {
    await setSetting('sandbox.enabled', false);
    await setSetting('autoApprove', { read: true, write: false, execute: true, network: false });
    await setSetting('commandDenyList', ['git push']);
    try {
      const s = readSettings();
      assert.strictEqual(s.sandbox.enabled, true, 'the sandbox stays on');
      assert.strictEqual(s.autoApprove.execute, false, 'commands still ask');
      assert.deepStrictEqual(s.commandDenyList, ['git push'], 'a narrower value applies');
    } finally {
      await setSetting('sandbox.enabled', undefined);
      await setSetting('autoApprove', undefined);
      await setSetting('commandDenyList', undefined);
    }
  });

  it('offers "Fix with Forge" as a quick fix on a diagnostic', async () => {
    const collection = vscode.languages.createDiagnosticCollection('forge-test');
    try {
      const range = new vscode.Range(0, 10, 0, 11);
      // Code actions are offered for file: documents; use a real file in the workspace.
      const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'src', 'math.js');
      await vscode.workspace.openTextDocument(file); // the provider command needs a loaded model
      collection.set(file, [new vscode.Diagnostic(range, 'Expression expected.', vscode.DiagnosticSeverity.Error)]);
      // Diagnostics reach the workbench's marker service asynchronously; the code-action context is built from
      // those markers, so ask again until they have arrived (the provider itself is synchronous).
      let actions: vscode.CodeAction[] = [];
      const fix = await waitFor(
        async () => {
          actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
            'vscode.executeCodeActionProvider',
            file,
            range,
          );
          return actions.find((a) => a.title === 'Fix with Forge');
        },
        'the Fix with Forge code action',
        5000,
      ).catch(() => undefined);
      assert.ok(fix, `actions: ${actions.map((a) => a.title).join(', ')}`);
      assert.strictEqual(fix.command?.command, 'forge.fixProblem');
      assert.match(fix.command?.arguments?.[0].diagnostics[0].message, /Expression expected/);
    } finally {
      collection.dispose();
    }
  });
});
