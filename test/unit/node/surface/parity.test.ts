// The same scenario through the CLI's builder (src/cli/runtime.ts) and the extension's (host/wiring's vscode-free
// config + the shared surface builder), against the loopback model: what the model is sent must match — system
// prompt (but for the surface's own words: where it works, its environment line), the tool list, the first user
// message after `/review` is expanded from .forge/commands, and a nested AGENTS.md joining once a tool touches
// its folder.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VSCODE_CONTROLS } from '../../../../src/core/loop/surface';
import { createModeContextGatherer } from '../../../../src/core/modes/context';
import type { Approver } from '../../../../src/core/safety/approval';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { parseArgs } from '../../../../src/cli/args';
import { CLI_CONTROLS } from '../../../../src/cli/controls';
import { createRuntime, openTaskStore, resolveRoot } from '../../../../src/cli/runtime';
import { extensionAgentConfig } from '../../../../src/host/wiring/agent-config-base';
import { DiskEditApplier, NodeCommandRunner, NodeWorkspaceFs } from '../../../../src/node';
import { HookService } from '../../../../src/node/hooks/hook-service';
import { createWebTools } from '../../../../src/core/tools/builtin/web';
import { NodeWebClient } from '../../../../src/node/web/web-client';
import { buildAgent, createSlashRegistry, expandInput } from '../../../../src/node/surface/agents';
import { buildEndpointModel, priceOf } from '../../../../src/node/surface/model';
import { WorkspaceRules } from '../../../../src/node/surface/rules';
import type { SurfaceSettings } from '../../../../src/node/surface/settings';
import { startLlmServer, type LlmServer, type LlmTurn, type RecordedRequest } from '../../../support/llm-server';

const approveAll: Approver = { request: async () => ({ kind: 'approve', scope: 'once' }) };
const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** The extension's defaults for the settings the shared builder reads (package.json contributes.configuration). */
function extensionSettings(baseUrl: string): SurfaceSettings {
  return {
    provider: 'openai-compatible',
    model: 'gpt-4.1',
    baseUrl,
    mode: 'agent',
    maxIterations: undefined,
    costBudgetUsd: 2,
    tokenBudget: 2_000_000,
    timeBudgetMinutes: 30,
    streamIdleTimeoutSeconds: 90,
    fallbackModel: '',
    maxOutputTokens: 8192,
    temperature: undefined,
    thinkingBudgetTokens: 0,
    toolCallFormat: 'auto',
    contextWindow: 0,
  };
}

/** Builds the extension's Agent the way host/wiring does, with Node adapters in place of VS Code's. */
async function runExtension(ws: string, srv: LlmServer, text: string): Promise<void> {
  const settings = extensionSettings(srv.openaiBaseUrl);
  const built = await buildEndpointModel(settings as SurfaceSettings & { provider: 'openai-compatible' }, {
    apiKey: () => 'sk-parity',
    controls: {
      ...VSCODE_CONTROLS,
      setBaseUrl: 'Set forge.baseUrl',
      contextWindow: 'forge.contextWindow',
      toolCallFormat: 'forge.toolCallFormat',
    },
  });
  const model = built.model!;
  const fs = new NodeWorkspaceFs([ws]);
  const runner = new NodeCommandRunner({});
  const sandbox = { trusted: true, commands: { allow: [], deny: [] } };
  const tools = createWorkspaceTools({
    fs,
    runner,
    applier: new DiskEditApplier({ roots: () => [ws] }),
    sandbox,
    home: os.homedir(),
  });
  const rules = new WorkspaceRules(fs, () => undefined);
  await rules.load();
  const config = {
    ...extensionAgentConfig(
      settings,
      { info: model.info, price: (u, i = model.info) => priceOf(u, i) },
      {
        environment: () => `Workspace folders: ${ws}`,
        autoApprove: () => ({ write: true, execute: true, network: false }),
      },
    ),
    modeContext: createModeContextGatherer({ fs, sandbox, runner }),
  };
  // host/wiring/guards.ts: the web tools, and the tools with their hooks (none here), as the CLI wraps them.
  const hooks = new HookService({ root: () => ws, home: ws, allowed: () => false, warn: () => undefined });
  const all = [...tools, ...createWebTools(new NodeWebClient())];
  const agent = buildAgent(
    { model, tools: hooks.wrapTools(all), approver: approveAll, config: { ...config, hooks: hooks.port } },
    { rules },
  );
  const input = await expandInput(
    createSlashRegistry(fs, () => undefined),
    text,
  );
  assert.equal(input.kind, 'prompt');
  await agent.send(input.kind === 'prompt' ? input.text : '');
}

async function runCli(ws: string, srv: LlmServer, text: string): Promise<void> {
  const env = { OPENAI_API_KEY: 'sk-parity' };
  const opts = parseArgs(
    [
      'run',
      '--provider',
      'openai-compatible',
      '--base-url',
      srv.openaiBaseUrl,
      '--model',
      'gpt-4.1',
      '--no-memory',
      '--no-mcp',
      text,
    ],
    env,
    ws,
  );
  const root = await resolveRoot(ws);
  const rt = await createRuntime(
    opts,
    quiet,
    { root, workspace: root, store: await openTaskStore(root, () => undefined) },
    { env },
  );
  try {
    const input = await rt.expand(text);
    assert.equal(input.kind, 'prompt');
    await rt.makeAgent(approveAll).send(input.kind === 'prompt' ? input.text : '');
  } finally {
    await rt.dispose();
  }
}

const script = (): LlmTurn[] => [
  { toolCalls: [{ name: 'read_file', args: { path: 'pkg/a.ts' } }] },
  { toolCalls: [{ name: 'task_completion', args: { result: 'looks fine' } }] },
];

/** What the model was sent, with each surface's own words put back to one placeholder. */
function sent(r: RecordedRequest, ws: string) {
  const words = [VSCODE_CONTROLS.workplace, CLI_CONTROLS.workplace];
  const norm = (t: string) =>
    words
      .reduce((acc, w) => acc.split(w).join('<WORKPLACE>'), t)
      .split(ws)
      .join('<WS>');
  const messages = (r.body.messages as { role: string; content: unknown }[]).map((m) => ({
    role: m.role,
    text: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
  }));
  const system = messages.filter((m) => m.role === 'system').map((m) => norm(m.text));
  // The per-step context (iteration, environment) is each surface's own; the rest of the user turns must match.
  const users = messages
    .filter((m) => m.role === 'user')
    .map((m) => norm(m.text.replace(/\[Forge step context[\s\S]*$/, '')).trim())
    .filter(Boolean);
  const tools = ((r.body.tools ?? []) as { function: { name: string; parameters: unknown } }[]).map((t) => ({
    name: t.function.name,
    parameters: t.function.parameters,
  }));
  return {
    system,
    users,
    tools,
    stepContext: messages
      .filter((m) => m.role === 'user')
      .map((m) => m.text)
      .join('\n'),
  };
}

describe('surface parity: the CLI and the extension build the same run', function () {
  this.timeout(30_000);
  let srv: LlmServer;
  let ws: string;
  before(async () => {
    srv = await startLlmServer();
  });
  after(() => srv.close());
  beforeEach(async () => {
    ws = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-parity-')));
    await fsp.writeFile(path.join(ws, 'AGENTS.md'), 'Root rule: keep functions small.\n');
    await fsp.mkdir(path.join(ws, 'pkg'));
    await fsp.writeFile(path.join(ws, 'pkg', 'AGENTS.md'), 'Nested rule: pkg code has no default exports.\n');
    await fsp.writeFile(path.join(ws, 'pkg', 'a.ts'), 'export const a = 1;\n');
    await fsp.mkdir(path.join(ws, '.forge', 'commands'), { recursive: true });
    await fsp.writeFile(
      path.join(ws, '.forge', 'commands', 'review.md'),
      '---\ndescription: Review a file\n---\nReview $1 carefully for bugs and report them.\n',
    );
  });
  afterEach(() => fsp.rm(ws, { recursive: true, force: true }));

  it('system prompt, tools, the expanded /review message and the nested AGENTS.md are the same', async () => {
    srv.reset();
    srv.script(script());
    await runExtension(ws, srv, '/review pkg/a.ts');
    const ext = srv.requests.map((r) => sent(r, ws));
    srv.reset();
    srv.script(script());
    await runCli(ws, srv, '/review pkg/a.ts');
    const cli = srv.requests.map((r) => sent(r, ws));
    assert.equal(ext.length, 2);
    assert.equal(cli.length, 2);

    // The typed command reached the model expanded, the same on both surfaces.
    assert.match(cli[0].users[0], /^Review pkg\/a\.ts carefully for bugs and report them\./);
    assert.deepEqual(cli[0].users, ext[0].users);
    assert.deepEqual(
      cli[0].tools.map((t) => t.name),
      ext[0].tools.map((t) => t.name),
    );
    assert.ok(
      cli[0].tools.some((t) => t.name === 'delegate_task'),
      'delegate_task on both',
    );
    assert.deepEqual(cli[0].tools, ext[0].tools);
    assert.deepEqual(cli[0].system, ext[0].system);
    assert.match(cli[0].system.join('\n'), /Root rule: keep functions small/);
    assert.doesNotMatch(cli[0].system.join('\n'), /Nested rule/);
    // read_file touched pkg/: its AGENTS.md joined the next request's prompt on both surfaces.
    assert.match(cli[1].system.join('\n'), /Nested rule: pkg code has no default exports/);
    assert.deepEqual(cli[1].system, ext[1].system);
    // Each surface names itself where it works.
    assert.ok(srv.requests.every((r) => !JSON.stringify(r.body).includes("the user's VS Code workspace")));
  });
});
