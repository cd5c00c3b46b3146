// The MCP rows of the panel's strip from the real MCP manager: a workspace server waiting for the user's permission
// (its start refused the way McpService refuses it) is "needs_permission", shown amber as a question; a server whose
// command does not exist is an "error", shown red as failing (issue 26, item 4).
import { strict as assert } from 'node:assert';
import type { McpServerSpec } from '../../../src/core/mcp/config';
import { PERMISSION_PENDING } from '../../../src/core/mcp/permission';
import { McpManager } from '../../../src/node/mcp/manager';
import { scrubEnv } from '../../../src/node/sandbox/env';
import { mcpPanelState, mcpServerViews } from '../../../src/panel/mcp-view';
import { EcosystemSchema } from '../../../src/protocol/host-messages';

const spec = (name: string, command: string): McpServerSpec => ({
  name,
  source: '.vscode/mcp.json',
  type: 'stdio',
  command,
  args: [],
  env: {},
});

describe('panel MCP rows: permission wait versus failure', () => {
  it('from the real manager: waiting for permission is needs_permission, a missing command is an error', async () => {
    const manager = new McpManager({
      log: { debug: () => {}, info: () => {}, warn: () => {} },
      // McpService.confirmStart refuses a workspace server the user has not allowed yet with this error.
      resolve: async (s) => {
        if (s.name === 'db')
          throw new Error(`${PERMISSION_PENDING} (see the notification, or Forge: Show MCP Servers)`);
        return s;
      },
      baseEnv: () => scrubEnv(process.env).env,
      callTimeoutMs: () => 5_000,
      startTimeoutMs: 5_000,
      autoApproved: () => false,
    });
    await manager.configure([spec('db', process.execPath), spec('gone', '/nonexistent/forge-no-such-mcp-server')]);
    await manager.loadTools(new AbortController().signal);
    const rows = mcpServerViews(manager.status());
    assert.deepEqual(
      rows.map((r) => [r.name, r.state]),
      [
        ['db', 'needs_permission'],
        ['gone', 'error'],
      ],
      JSON.stringify(rows),
    );
    assert.match(rows[0]!.error ?? '', /waiting for your permission/);
    assert.ok(EcosystemSchema.safeParse({ mcp: rows, rules: [], attachments: [] }).success);
    for (const c of ['db', 'gone']) await manager.connection(c)?.stop();
  });

  it('only an error that is the permission wait becomes a question; other states pass through', () => {
    assert.equal(
      mcpPanelState({ state: 'error', error: `configuration: ${PERMISSION_PENDING} (see ...)` }),
      'needs_permission',
    );
    assert.equal(mcpPanelState({ state: 'error', error: 'could not start: spawn x ENOENT' }), 'error');
    assert.equal(mcpPanelState({ state: 'error' }), 'error');
    assert.equal(mcpPanelState({ state: 'running', error: PERMISSION_PENDING }), 'running');
    assert.equal(mcpPanelState({ state: 'disabled' }), 'disabled');
  });

  it('keeps the rows within the protocol bounds', () => {
    const many = Array.from({ length: 120 }, (_, i) => ({
      name: `s${i}`.padEnd(300, 'x'),
      state: 'idle',
      tools: ['a', 'b'],
    }));
    const rows = mcpServerViews(many);
    assert.equal(rows.length, 100);
    assert.equal(rows[0]!.name.length, 200);
    assert.equal(rows[0]!.tools, 2);
    assert.ok(EcosystemSchema.safeParse({ mcp: rows, rules: [], attachments: [] }).success);
  });
});
