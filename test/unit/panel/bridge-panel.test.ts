// The panel's own messages: delete a task, switch mode, check / save a provider; modes in the snapshot.
import { strict as assert } from 'node:assert';
import { PanelBridge } from '../../../src/panel/bridge';
import type { WebviewHandlers } from '../../../src/panel/webview-handlers';
import {
  actionToMessage,
  parseHostMessage,
  parseWebviewMessage,
  type HostMessage,
} from '../../../src/protocol/messages';
import { fakeHandlers } from './fake-handlers';

function setup(given: Partial<WebviewHandlers> = {}) {
  const calls: unknown[][] = [];
  const noop = () => undefined;
  const warnings: string[] = [];
  const bridge = new PanelBridge(fakeHandlers(given), {
    info: noop,
    warn: (m) => warnings.push(m),
    error: (m) => warnings.push(m),
  });
  const sent: HostMessage[] = [];
  const conn = bridge.connect((m) => sent.push(m));
  conn.receive({ type: 'ready' });
  return { bridge, conn, sent, calls, warnings };
}

describe("panel bridge: the panel's own messages", () => {
  it('routes delete_task, set_mode, check_provider and save_provider to their handlers', () => {
    const calls: unknown[][] = [];
    const { conn, warnings } = setup({
      delete_task: ({ id }) => void calls.push(['delete', id]),
      set_mode: ({ mode }) => void calls.push(['mode', mode]),
      check_provider: (r) => void calls.push(['check', r]),
      save_provider: (r) => void calls.push(['save', r]),
    });
    conn.receive({ type: 'delete_task', id: 'task-1' });
    conn.receive({ type: 'set_mode', mode: 'plan' });
    conn.receive({ type: 'check_provider', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' });
    conn.receive({ type: 'save_provider', provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-ant' });
    assert.deepEqual(calls, [
      ['delete', 'task-1'],
      ['mode', 'plan'],
      ['check', { type: 'check_provider', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' }],
      ['save', { type: 'save_provider', provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-ant' }],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('rejects an unknown provider and extra keys (untrusted direction)', () => {
    assert.equal(parseWebviewMessage({ type: 'save_provider', provider: 'evil' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'check_provider', provider: 'openai', extra: 1 }).ok, false);
  });

  it('every message has a handler: a table without one does not compile', () => {
    const { delete_task: _dropped, ...partial } = fakeHandlers();
    // @ts-expect-error delete_task is missing
    const incomplete: WebviewHandlers = partial;
    assert.equal('delete_task' in incomplete, false);
  });

  it('a handler that fails later is logged with its message type', async () => {
    const { conn, warnings } = setup({ delete_task: () => Promise.reject(new Error('disk full')) });
    conn.receive({ type: 'delete_task', id: 'x' });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings, ["panel: handling 'delete_task' failed: disk full"]);
  });

  it('snapshots carry the modes and the current mode; a mode change is posted', () => {
    const { bridge, sent } = setup();
    bridge.setModes(
      [
        { id: 'agent', label: 'Agent' },
        { id: 'plan', label: 'Plan' },
      ],
      'agent',
    );
    const snap = bridge.snapshot();
    assert.deepEqual([snap.modes?.length, snap.mode], [2, 'agent']);
    bridge.setMode('plan');
    assert.deepEqual(sent.at(-1), { type: 'mode', mode: 'plan' });
    assert.equal(bridge.snapshot().mode, 'plan');
    for (const m of sent) assert.ok(parseHostMessage(m).ok);
  });

  it('Retry continues the task; "Set up a model" asks for the model picker outside the panel', () => {
    assert.equal(actionToMessage('retry', () => 'r1').type, 'continue');
    assert.deepEqual(
      actionToMessage('setup_model', () => 'r1'),
      { type: 'select_model' },
    );
  });
});
