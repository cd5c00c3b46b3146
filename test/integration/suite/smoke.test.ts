import * as assert from 'node:assert';
import * as vscode from 'vscode';

describe('harness smoke', () => {
  it('runs inside a real VS Code extension host with the workspace open', () => {
    assert.ok(vscode.version);
    assert.strictEqual(vscode.workspace.workspaceFolders?.length, 1);
    console.log(`    vscode ${vscode.version}, node ${process.version}, uiKind ${vscode.env.uiKind}`);
  });
});
