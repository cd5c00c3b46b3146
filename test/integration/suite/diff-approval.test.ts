import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { ApprovalCenter } from '../../../src/host/ui/approval-center';
import type { DiffApproval } from '../../../src/host/edits/diff-approval';
import { PROPOSED_SCHEME } from '../../../src/host/edits/diff-approval';
import { VscodeEditApplier } from '../../../src/host/edits/edit-applier';
import { activateForge, allTabs, closeAllEditors, readText, waitFor, wsPath } from '../helpers';

interface ForgeTestApi {
  diffApproval: DiffApproval;
  approvals: ApprovalCenter;
}

const diffTab = () =>
  allTabs().find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSED_SCHEME);

describe('diff approval + WorkspaceEdit applier', () => {
  let api: ForgeTestApi;
  const applier = new VscodeEditApplier();
  before(async () => {
    api = await activateForge<ForgeTestApi>();
  });
  afterEach(closeAllEditors);

  it('opens a diff for a proposal; Accept applies it undoably (Ctrl+Z restores)', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    const proposed = original.replace("'Hello, '", "'Hi, '");
    const outcome = api.diffApproval.propose({ id: 'p-accept', path: file, original, proposed, isNewFile: false });
    const tab = await waitFor(diffTab, 'the diff tab');
    assert.match(tab.label, /greet\.js/);
    assert.deepStrictEqual(api.diffApproval.pendingIds(), ['p-accept']);

    assert.strictEqual(await vscode.commands.executeCommand('forge.acceptEdit'), true);
    const result = await outcome;
    assert.deepStrictEqual(result, { kind: 'accept', content: proposed, edited: false });
    await waitFor(() => !diffTab(), 'the diff tab to close');

    await applier.apply({
      path: file,
      content: result.kind === 'accept' ? result.content : '',
      original,
      isNewFile: false,
    });
    assert.strictEqual(await readText(file), proposed, 'saved to disk');

    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    // The edit went to disk; the editor shows it once VS Code reloads the file (its watcher): then Ctrl+Z.
    await waitFor(() => doc.getText() === proposed, 'the editor to show the edit');
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === original, 'undo to restore the original text');
    await doc.save();
    assert.strictEqual(await readText(file), original);
  });

  it('returns the user-edited proposed side on Accept (per-hunk changes)', async () => {
    const file = wsPath('src', 'math.js');
    const original = await readText(file);
    const proposed = original.replace(
      'return a / b;',
      "if (b === 0) throw new Error('division by zero');\n  return a / b;",
    );
    const outcome = api.diffApproval.propose({ id: 'p-edit', path: file, original, proposed, isNewFile: false });
    const tab = await waitFor(diffTab, 'the diff tab');
    const proposedUri = (tab.input as vscode.TabInputTextDiff).modified;
    const doc = await vscode.workspace.openTextDocument(proposedUri);
    // The proposed side is editable: the user tweaks the message before accepting.
    const we = new vscode.WorkspaceEdit();
    const text = doc.getText();
    const at = text.indexOf('division by zero');
    we.replace(
      proposedUri,
      new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'division by zero'.length)),
      'b must not be 0',
    );
    assert.ok(await vscode.workspace.applyEdit(we));
    assert.strictEqual(await vscode.commands.executeCommand('forge.acceptEdit', proposedUri), true);
    const result = await outcome;
    assert.strictEqual(result.kind, 'accept');
    assert.ok(result.kind === 'accept' && result.edited && result.content.includes("new Error('b must not be 0')"));
    assert.strictEqual(await readText(file), original, 'accepting a proposal alone writes nothing');
  });

  it('Reject (with a reason) leaves the file untouched and closes the diff', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    const outcome = api.diffApproval.propose({
      id: 'p-reject',
      path: file,
      original,
      proposed: '// gone\n',
      isNewFile: false,
    });
    await waitFor(diffTab, 'the diff tab');
    assert.strictEqual(await vscode.commands.executeCommand('forge.rejectEdit', 'p-reject', 'keep the greeting'), true);
    assert.deepStrictEqual(await outcome, { kind: 'reject', reason: 'keep the greeting' });
    await waitFor(() => !diffTab(), 'the diff tab to close');
    assert.strictEqual(await readText(file), original);
    assert.deepStrictEqual(api.diffApproval.pendingIds(), []);
  });

  it('ApprovalCenter: an edit preview opens the diff and the panel answer resolves it', async () => {
    const file = wsPath('src', 'new-module.js');
    const ac = new AbortController();
    const decision = api.approvals.request(
      {
        id: 'a-1',
        taskId: 't-1',
        toolCallId: 'c-1',
        toolName: 'write_file',
        risk: 'write',
        args: {},
        preview: { kind: 'edit', path: file, original: '', proposed: 'module.exports = 42;\n', isNewFile: true },
      },
      ac.signal,
    );
    await waitFor(diffTab, 'the diff tab');
    assert.deepStrictEqual(
      api.approvals.pending().map((r) => r.id),
      ['a-1'],
    );
    assert.ok(await api.approvals.resolve('a-1', { kind: 'approve', scope: 'once' }));
    // The previewed edit comes along, so write_file writes it without reading or computing it again.
    assert.deepStrictEqual(await decision, {
      kind: 'approve',
      scope: 'once',
      edit: { path: file, original: '', content: 'module.exports = 42;\n', isNewFile: true },
    });
    // What write_file does after approval: create the file through the applier.
    await applier.apply({ path: file, content: 'module.exports = 42;\n', isNewFile: true });
    assert.strictEqual(await readText(file), 'module.exports = 42;\n');
  });

  it('ApprovalCenter: aborting the run cancels the pending approval and closes the diff', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    const ac = new AbortController();
    const decision = api.approvals.request(
      {
        id: 'a-2',
        taskId: 't-1',
        toolCallId: 'c-2',
        toolName: 'apply_diff',
        risk: 'write',
        args: {},
        preview: { kind: 'edit', path: file, original, proposed: original + '// more\n', isNewFile: false },
      },
      ac.signal,
    );
    await waitFor(diffTab, 'the diff tab');
    ac.abort();
    await assert.rejects(decision);
    await waitFor(() => !diffTab(), 'the diff tab to close');
    assert.deepStrictEqual(api.approvals.pending(), []);
  });
});
