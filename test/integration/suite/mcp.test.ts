// MCP and project rules in a real VS Code: a workspace .vscode/mcp.json with the real server-filesystem, a
// scripted model that calls its tool (after approval), the result reaching the model; AGENTS.md in the prompt.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, llm, workspaceRoot, wsPath } from '../helpers';
import {
  done,
  forge,
  freshTask,
  historyIsConsistent,
  pendingApproval,
  setSetting,
  toolResultSeenByModel,
  type ForgeApi,
} from './forge-api';

describe('Forge MCP and project rules (real VS Code)', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  const mcpJson = () => wsPath('.vscode', 'mcp.json');
  const agentsMd = () => wsPath('AGENTS.md');
  let hadMcpJson: string | undefined;

  before(async () => {
    api = await forge();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const server = path.join(
      ext.extensionPath,
      'node_modules',
      '@modelcontextprotocol',
      'server-filesystem',
      'dist',
      'index.js',
    );
    const everything = path.join(
      ext.extensionPath,
      'node_modules',
      '@modelcontextprotocol',
      'server-everything',
      'dist',
      'index.js',
    );
    assert.ok(fs.existsSync(server), server);
    hadMcpJson = fs.existsSync(mcpJson()) ? fs.readFileSync(mcpJson(), 'utf8') : undefined;
    fs.mkdirSync(path.dirname(mcpJson()), { recursive: true });
    fs.writeFileSync(
      mcpJson(),
      `{\n  // as VS Code writes it\n  "servers": {\n    "fs": { "type": "stdio", "command": "node", "args": [${JSON.stringify(server)}, "\${workspaceFolder}"] },\n` +
        `    "every": { "type": "stdio", "command": "node", "args": [${JSON.stringify(everything)}, "stdio"] },\n` +
        `    "unasked": { "type": "stdio", "command": "node", "args": [${JSON.stringify(everything)}, "stdio"] },\n  },\n}\n`,
    );
    fs.writeFileSync(agentsMd(), '# Rules\n\nAlways answer in the voice of a ship captain (rule marker 7f3a).\n');
    const eco = (api.testApi as any).ecosystem;
    eco.mcp.reload();
    eco.rules.reload();
    await eco.mcp.ready();
    await eco.rules.ready();
    // Servers from a workspace's mcp.json ask once before their first start (as if the user chose Start).
    await eco.mcp.allowServer('fs');
    await eco.mcp.allowServer('every');
  });

  after(async () => {
    if (hadMcpJson === undefined) fs.rmSync(mcpJson(), { force: true });
    else fs.writeFileSync(mcpJson(), hadMcpJson);
    fs.rmSync(agentsMd(), { force: true });
    const eco = (api.testApi as any).ecosystem;
    eco.mcp.reload();
    eco.rules.reload();
    await eco.mcp.ready();
  });

  it('registers the MCP and rules commands', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    for (const id of ['forge.showMcpServers', 'forge.attachMcpResource', 'forge.editProjectRules'])
      assert.ok(all.has(id), id);
  });

  it('a scripted model calls a server-filesystem tool from .vscode/mcp.json; the result reaches the model', async () => {
    const eco = (api.testApi as any).ecosystem;
    assert.deepStrictEqual(
      eco.mcp.manager.status().map((s: any) => `${s.name}:${s.state}`),
      ['fs:stopped', 'every:stopped', 'unasked:stopped'],
      'configured, not started before use',
    );
    await freshTask(api, [
      { toolCalls: [{ id: 'm-read', name: 'mcp__fs__read_text_file', args: { path: wsPath('src', 'greet.js') } }] },
      done('Read greet.js through MCP.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Read src/greet.js with the filesystem server.');
    const approval = await pendingApproval(api, 'mcp__fs__read_text_file', 60_000);
    api.testApi.controller.webview.approval_decision({
      type: 'approval_decision',
      requestId: approval.id,
      decision: { kind: 'approve', scope: 'once' },
    });
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.match(
      (await toolResultSeenByModel('m-read')) ?? '',
      /Hello, /,
      'the file text came back from the MCP server',
    );
    assert.ok(historyIsConsistent(api.testApi.manager.current.dump().history));

    const first = (await llm.requests())[0]!;
    const tool = (first.body.tools ?? []).find((t: any) => t.function?.name === 'mcp__fs__read_text_file');
    assert.ok(tool, 'the MCP tool was offered to the model');
    assert.match(tool.function.description, /third-party text/);
    const system = JSON.stringify(first.body.messages.filter((m: any) => m.role === 'system'));
    assert.match(system, /rule marker 7f3a/, 'AGENTS.md is in the system prompt');
    const status = eco.mcp.manager.status();
    assert.deepStrictEqual(
      status.map((s: any) => s.state),
      ['running', 'running', 'error'],
    );
    assert.match(
      status[2].error,
      /waiting for your permission/,
      'a workspace server the user has not allowed does not start',
    );
    assert.ok(!(first.body.tools ?? []).some((t: any) => t.function?.name.startsWith('mcp__unasked__')));
    assert.ok(eco.rules.inUse(api.testApi.manager.current.id).some((r: any) => r.display === 'AGENTS.md'));
    assert.ok(workspaceRoot());
  });

  it('lists MCP prompts for slash commands and attaches a resource to the next message', async () => {
    const eco = (api.testApi as any).ecosystem;
    const prompts = await eco.mcp.listPrompts();
    const simple = prompts.find((p: any) => p.server === 'every' && p.name === 'simple-prompt');
    assert.ok(simple, JSON.stringify(prompts.map((p: any) => p.command)));
    assert.strictEqual(simple.command, 'mcp.every.simple-prompt');
    assert.ok((await eco.mcp.expandPrompt('every', 'simple-prompt')).length > 0);

    const resources = await eco.mcp.manager.listResources();
    const resource = resources.find((r: any) => r.server === 'every' && /text/.test(r.mimeType ?? ''));
    assert.ok(resource, JSON.stringify(resources.slice(0, 5)));
    const attached = await vscode.commands.executeCommand('forge.attachMcpResource', {
      server: 'every',
      uri: resource.uri,
    });
    assert.strictEqual(attached, resource.uri);
    assert.deepStrictEqual(eco.mcp.pendingAttachments, [resource.uri]);

    await freshTask(api, [done('Looked at the attachment.')]);
    const report = await api.testApi.controller.startRun('send', 'Summarise the attached resource.');
    assert.strictEqual(report.reason, 'done', report.detail);
    const first = (await llm.requests())[0]!;
    const users = first.body.messages
      .filter((m: any) => m.role === 'user')
      .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    const sent = users.find((u: string) => u.includes('Summarise the attached resource.'));
    assert.ok(sent, JSON.stringify(users).slice(0, 500));
    assert.ok(sent.includes(`[Attached MCP resource ${resource.uri} from server "every"`), sent.slice(0, 500));
    assert.deepStrictEqual(eco.mcp.pendingAttachments, [], 'sent once');
  });

  it("a server from workspace settings is not started without the user's permission", async () => {
    const eco = (api.testApi as any).ecosystem;
    await setSetting('mcp.servers', { fromrepo: { type: 'stdio', command: 'node', args: ['-e', 'process.exit(0)'] } });
    try {
      eco.mcp.reload();
      await eco.mcp.ready();
      const s = eco.mcp.manager.status().find((x: any) => x.name === 'fromrepo');
      assert.strictEqual(s?.source, 'workspace settings');
      const err = await eco.mcp.manager
        .connection('fromrepo')
        .listTools()
        .then(
          () => undefined,
          (e: Error) => e,
        );
      assert.match(String(err?.message), /waiting for your permission/);
    } finally {
      await setSetting('mcp.servers', undefined);
    }
  });
});
