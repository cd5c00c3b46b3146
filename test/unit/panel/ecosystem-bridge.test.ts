// The ecosystem strip's messages through the bridge: kept for late webviews, actions routed to the host.
import { strict as assert } from 'node:assert';
import { PanelBridge } from '../../../src/panel/bridge';
import { parseWebviewMessage, type HostMessage } from '../../../src/protocol/messages';
import { fakeHandlers } from './fake-handlers';

describe('panel bridge: ecosystem strip', () => {
  const logger = { info: () => {}, warn: () => {}, error: () => {} };

  it('sends the last ecosystem view to a webview that becomes ready later', () => {
    const bridge = new PanelBridge(fakeHandlers(), logger);
    const ecosystem = { mcp: [{ name: 'fs', state: 'running', tools: 3 }], rules: [], attachments: [] };
    bridge.post({ type: 'ecosystem', ecosystem });
    const sent: HostMessage[] = [];
    const conn = bridge.connect((m) => sent.push(m));
    conn.receive({ type: 'ready' });
    assert.deepEqual(
      sent.map((m) => m.type),
      ['state', 'ecosystem'],
    );
    assert.deepEqual(sent[1], { type: 'ecosystem', ecosystem });
  });

  it('routes actions to the host handler; forged ones are dropped', () => {
    const seen: unknown[] = [];
    const bridge = new PanelBridge(
      fakeHandlers({ ecosystem_action: ({ action, display }) => void seen.push([action, display]) }),
      logger,
    );
    const conn = bridge.connect(() => true);
    conn.receive({ type: 'ecosystem_action', action: 'open_rule', display: 'AGENTS.md' });
    conn.receive({ type: 'ecosystem_action', action: 'run_anything', display: 'x' });
    conn.receive({ type: 'ecosystem_action', action: 'edit_rules', path: '/etc/passwd' });
    assert.deepEqual(seen, [['open_rule', 'AGENTS.md']]);
    assert.equal(parseWebviewMessage({ type: 'ecosystem_action', action: 'show_mcp_servers' }).ok, true);
  });
});
