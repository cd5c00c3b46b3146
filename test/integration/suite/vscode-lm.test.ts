// The default provider (forge.provider "vscode-lm") for real: a scripted chat model offered through VS Code's own
// vscode.lm.registerLanguageModelChatProvider by the test-only extension test/integration/fixtures/lm-provider,
// and whole Forge tasks running on it through src/providers/vscode-lm.ts and the real vscode.lm plumbing
// (extension host -> workbench -> the provider's extension host and back).
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { readText, waitFor, wsPath } from '../helpers';
import { forge, historyIsConsistent, pendingApproval, setSetting, type ForgeApi } from './forge-api';

const LM_EXTENSION_ID = 'forge-dev.forge-test-lm';
const MODEL_ID = 'forge-test-model';
const MAX_INPUT_TOKENS = 48_000; // the fixture's maxInputTokens

interface LmPart {
  type: string;
  value?: string;
  callId?: string;
  name?: string;
  input?: any;
  content?: unknown[];
}
interface LmRequest {
  model: string;
  messages: Array<{ role: string; content: LmPart[] }>;
  tools: Array<{ name: string; description: string; inputSchema: any }>;
  toolMode: number;
  outcome: string;
  cancelled: boolean;
  cancelledAt?: number;
}
/** The exports of the fixture extension (see its extension.js). */
interface ScriptedLm {
  vendor: string;
  registered: boolean;
  register(models?: unknown[]): void;
  unregister(): void;
  script(turns: unknown[]): void;
  requests: LmRequest[];
  tokenCounts: Array<{ kind: string; tokens: number }>;
  turnsLeft: number;
  waitForRequest(n: number): Promise<LmRequest>;
}

const done = (result: string) => ({
  toolCalls: [{ id: `lm-done-${Math.random().toString(36).slice(2, 8)}`, name: 'task_completion', args: { result } }],
});

describe('vscode-lm: the default provider on a real vscode.lm chat model', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  let lm: ScriptedLm;
  const status = () => api.testApi.panel.bridge.snapshot().provider;
  const session = () => api.testApi.manager.current;

  /** Registers the scripted model and waits until Forge uses it (the models-changed event refreshes Forge). */
  async function useScriptedModel(): Promise<void> {
    lm.register();
    await waitFor(
      () => status().provider === 'vscode-lm' && status().configured && status().model === MODEL_ID,
      'Forge to pick up the vscode.lm model',
    );
    assert.strictEqual(api.testApi.model.configured, true);
  }

  async function freshLmTask(turns: unknown[]): Promise<void> {
    await waitFor(() => !session().running, 'the previous run to end');
    api.testApi.controller.newTask();
    lm.script(turns);
  }

  /** The tool result the scripted model received for `callId` (vscode.lm LanguageModelToolResultPart). */
  function toolResultSeen(callId: string): string | undefined {
    for (const r of lm.requests.slice().reverse()) {
      for (const m of r.messages) {
        const part = m.content.find((p) => p.type === 'tool_result' && p.callId === callId);
        if (part) return (part.content ?? []).map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('');
      }
    }
    return undefined;
  }

  before(async () => {
    api = await forge();
    const ext = vscode.extensions.getExtension(LM_EXTENSION_ID);
    assert.ok(ext, `the test-only chat model extension ${LM_EXTENSION_ID} is loaded next to Forge (run.mjs)`);
    lm = (await ext.activate()) as ScriptedLm;
    lm.unregister();
  });

  afterEach(async () => {
    const s = session();
    if (s.running) {
      for (const r of api.approvals.pending())
        await api.approvals.resolve(r.id, { kind: 'reject', reason: 'test cleanup' });
      s.stop();
      await waitFor(() => !s.running, 'the run to stop');
    }
  });

  after(async () => {
    lm?.unregister();
    // Back to the loopback server the harness configured.
    await setSetting('provider', 'openai-compatible');
    await setSetting('model', 'test-model');
    await waitFor(
      () => status().provider === 'openai-compatible' && api.testApi.model.configured,
      'the loopback model again',
    );
  });

  it('no chat model: the panel says what to do; a model appearing later is picked up without touching settings', async () => {
    assert.deepStrictEqual(
      await vscode.lm.selectChatModels({ vendor: lm.vendor }),
      [],
      'nothing is offered before register()',
    );
    await setSetting('model', '');
    await setSetting('provider', 'vscode-lm');
    await waitFor(() => status().provider === 'vscode-lm' && !status().configured, 'the no-model status');
    assert.match(status().problem ?? '', /No chat model is available in VS Code.*Select Model/s);

    await useScriptedModel(); // only vscode.lm.onDidChangeChatModels tells Forge about it
    const st = status();
    assert.strictEqual(st.problem, undefined);
    assert.ok(
      (st.models ?? []).some(
        (m: any) => m.id === `vscode-lm:${MODEL_ID}` && /Forge Test Model \(forge-test, VS Code\)/.test(m.label),
      ),
      `the model list offers the vscode.lm model: ${JSON.stringify(st.models)}`,
    );
    assert.strictEqual(st.modelId, `vscode-lm:${MODEL_ID}`);
    assert.strictEqual(
      (api.testApi.model as any).info.contextWindow,
      MAX_INPUT_TOKENS,
      "the context window is the model's maxInputTokens",
    );
  });

  it('a whole task: streamed text, tool calls and results, a rejected edit, token counting and the context window', async () => {
    await useScriptedModel();
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    await freshLmTask([
      {
        thinking: 'The greeting lives in src/greet.js.',
        chunks: ['Let me ', 'read ', 'the file.'],
        delayMs: 20,
        toolCalls: [{ id: 'lm-read', name: 'read_file', args: { path: 'src/greet.js' } }],
      },
      {
        text: 'Now the edit.',
        toolCalls: [
          {
            id: 'lm-edit',
            name: 'apply_diff',
            args: {
              path: 'src/greet.js',
              blocks: [{ search: "  return 'Hello, ' + name + '!';", replace: "  return 'Hi, ' + name + '!';" }],
            },
          },
        ],
      },
      done('Left the greeting as it is, as asked.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Make the greeting say Hi.');
    const edit = await pendingApproval(api, 'apply_diff');
    assert.strictEqual(
      await vscode.commands.executeCommand('forge.rejectEdit', edit.id, 'Keep Hello, it is the house style'),
      true,
    );
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.strictEqual(await readText(file), original, 'the rejected edit was not written');
    assert.strictEqual(lm.requests.length, 3, `one vscode.lm request per step: ${lm.requests.map((r) => r.outcome)}`);

    // What the model received, in vscode.lm's own message parts.
    const [first, second, third] = lm.requests;
    assert.strictEqual(first.model, MODEL_ID);
    assert.strictEqual(first.messages[0].role, 'user', 'the system prompt travels as the first user message');
    assert.match(first.messages[0].content[0].value ?? '', /Forge/);
    assert.strictEqual(first.messages.at(-1)?.content.at(-1)?.value, 'Make the greeting say Hi.');
    assert.strictEqual(first.toolMode, vscode.LanguageModelChatToolMode.Auto);
    const readTool = first.tools.find((t) => t.name === 'read_file');
    assert.ok(readTool, `tools offered: ${first.tools.map((t) => t.name)}`);
    assert.strictEqual(readTool.inputSchema.type, 'object');
    assert.ok(readTool.inputSchema.properties?.path, 'the schema has the path property');
    assert.strictEqual(readTool.inputSchema.$schema, undefined);
    for (const name of ['apply_diff', 'task_completion', 'execute_command'])
      assert.ok(
        first.tools.some((t) => t.name === name),
        `${name} offered`,
      );

    const assistant = second.messages.find((m) => m.role === 'assistant');
    assert.deepStrictEqual(
      assistant?.content.map((p) => [p.type, p.value ?? p.name]),
      [
        ['text', 'Let me read the file.'],
        ['tool_call', 'read_file'],
      ],
      'the assistant turn comes back with its text and its tool call',
    );
    assert.strictEqual(assistant?.content[1].callId, 'lm-read');
    assert.deepStrictEqual(assistant?.content[1].input, { path: 'src/greet.js' });
    const afterCall = second.messages[second.messages.indexOf(assistant!) + 1];
    assert.strictEqual(afterCall.role, 'user', 'the tool result follows the call in a user message');
    assert.strictEqual(afterCall.content[0].type, 'tool_result');
    assert.match(
      toolResultSeen('lm-read') ?? '',
      /Hello, /,
      'the model saw the file through a LanguageModelToolResultPart',
    );
    assert.match(
      toolResultSeen('lm-edit') ?? '',
      /^Error: .*Keep Hello, it is the house style/s,
      'the rejection and its reason reach the model as an error result',
    );
    assert.ok(third.messages.length > second.messages.length);

    // The panel: streamed text, tool cards, the rejected edit.
    const items = session().transcript.snapshot().items;
    assert.ok(
      items.some((i: any) => i.kind === 'assistant' && i.text.includes('Let me read the file.')),
      'streamed text is in the transcript',
    );
    assert.ok(
      items.some((i: any) => i.kind === 'thinking' && i.text.includes('The greeting lives in src/greet.js.')),
      'a LanguageModelThinkingPart shows as thinking',
    );
    const tools = items.filter((i: any) => i.kind === 'tool');
    assert.deepStrictEqual(
      tools.map((i: any) => i.name),
      ['read_file', 'apply_diff', 'task_completion'],
    );
    assert.strictEqual(tools[1].status, 'rejected');

    // Token counting: the provider's provideTokenCount is what Forge's usage and context accounting use.
    assert.ok(
      lm.tokenCounts.some((c) => c.kind === 'message'),
      `messages counted: ${JSON.stringify(lm.tokenCounts.slice(0, 5))}`,
    );
    assert.ok(
      lm.tokenCounts.some((c) => c.kind === 'string'),
      'output and tool definitions counted',
    );
    const steps = report.steps.filter((s: any) => s.usage);
    assert.strictEqual(steps.length, 3, `usage per step: ${JSON.stringify(report.steps.map((s: any) => s.usage))}`);
    assert.ok(
      steps.every((s: any) => s.usage.inputTokens > 0 && !s.usageEstimated),
      "usage comes from the model, not Forge's guess",
    );
    assert.ok(
      steps[1].usage.inputTokens > steps[0].usage.inputTokens,
      'the second step carries the file: more input tokens',
    );
    const progress = session().transcript.snapshot().progress;
    assert.strictEqual(progress?.contextWindow, MAX_INPUT_TOKENS, "the window shown is the model's maxInputTokens");
    assert.ok(
      (progress?.contextTokens ?? 0) > 0 && progress.contextTokens < MAX_INPUT_TOKENS,
      `context tokens: ${progress?.contextTokens}`,
    );
    assert.strictEqual(report.costUsd, undefined, 'no made-up price for a vscode.lm model');
    // The history repeats every step: counts are cached, so the third step did not count everything again.
    const messageCounts = lm.tokenCounts.filter((c) => c.kind === 'message').length;
    const sent = lm.requests.reduce((n, r) => n + r.messages.length, 0);
    assert.ok(messageCounts < sent, `${messageCounts} message counts for ${sent} messages sent`);
    assert.ok(historyIsConsistent(session().dump().history));
  });

  it('tool arguments that are not an object come back to the model as a precise error result', async () => {
    await useScriptedModel();
    await freshLmTask([
      { toolCalls: [{ id: 'lm-array', name: 'read_file', args: ['src/greet.js'] }] },
      done('Gave up.'),
    ]);
    const report = await api.testApi.controller.startRun('send', 'Read it.');
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.match(toolResultSeen('lm-array') ?? '', /^Error: .*JSON object.*array/s, toolResultSeen('lm-array'));
    const call = lm.requests[1].messages
      .flatMap((m) => m.content)
      .find((p) => p.type === 'tool_call' && p.callId === 'lm-array');
    assert.deepStrictEqual(call?.input, {}, 'the call goes back as an object (vscode.lm requires one)');
  });

  it("Stop mid-stream reaches the provider's CancellationToken; the task continues afterwards", async () => {
    await useScriptedModel();
    await freshLmTask([{ chunks: ['Working on it'], hang: 'honour' }]);
    const run = api.testApi.controller.startRun('send', 'Take your time.');
    const request = await lm.waitForRequest(1);
    await waitFor(
      () =>
        session()
          .transcript.snapshot()
          .items.some((i: any) => i.kind === 'assistant' && i.text.includes('Working on it')),
      'the streamed text',
    );
    const t0 = Date.now();
    await vscode.commands.executeCommand('forge.stop');
    const report = await run;
    const stopMs = Date.now() - t0;
    assert.strictEqual(report.reason, 'stopped', report.detail);
    assert.ok(stopMs < 1000, `Stop ended the run in ${stopMs} ms`);
    await waitFor(() => request.cancelled, 'the cancellation to reach the provider', 3000);
    await waitFor(() => request.outcome === 'cancelled', 'the provider to end on its token', 3000);
    assert.ok(historyIsConsistent(session().dump().history));

    lm.script([done('Finished after the stop.')]);
    const resumed = await api.testApi.controller.startRun('continue', '');
    assert.strictEqual(resumed?.reason, 'done', resumed?.detail);
    const partial = lm.requests[0].messages.find((m) => m.role === 'assistant');
    assert.match(partial?.content[0]?.value ?? '', /Working on it/, 'what the model said before the stop is kept');
  });

  it('Stop ends the run at once even when the provider ignores its CancellationToken', async () => {
    await useScriptedModel();
    await freshLmTask([{ chunks: ['Never ending'], hang: 'ignore' }]);
    const run = api.testApi.controller.startRun('send', 'Go.');
    const request = await lm.waitForRequest(1);
    await waitFor(
      () =>
        session()
          .transcript.snapshot()
          .items.some((i: any) => i.kind === 'assistant' && i.text.includes('Never ending')),
      'the streamed text',
    );
    const t0 = Date.now();
    await vscode.commands.executeCommand('forge.stop');
    const report = await run;
    assert.strictEqual(report.reason, 'stopped', report.detail);
    assert.ok(Date.now() - t0 < 1000, `Stop took ${Date.now() - t0} ms`);
    await waitFor(() => request.cancelled, 'the token to be cancelled anyway', 3000);
    assert.strictEqual(request.outcome, 'hanging', 'the provider really ignored it');
  });

  it('LanguageModelError NoPermissions / Blocked / NotFound end the run with what to do (no retries, no API-key advice)', async () => {
    await useScriptedModel();
    const cases = [
      { code: 'NoPermissions', detail: /did not give Forge access.*Manage Language Model Access/s, action: 'retry' },
      { code: 'Blocked', detail: /refused requests from Forge.*Select Model/s, action: 'select_model' },
      { code: 'NotFound', detail: /was not found.*Select Model/s, action: 'select_model' },
    ];
    for (const c of cases) {
      await freshLmTask([{ error: { code: c.code, message: `scripted ${c.code}` } }, done('should not be reached')]);
      const report = await api.testApi.controller.startRun('send', 'Hi');
      assert.strictEqual(report.reason, 'error', `${c.code}: ${report.detail}`);
      assert.match(report.detail, c.detail, c.code);
      assert.match(report.detail, new RegExp(`scripted ${c.code}`), "VS Code's own message is kept");
      assert.doesNotMatch(report.detail, /API key/i, `${c.code}: vscode.lm has no API key to set`);
      assert.strictEqual(lm.requests.length, 1, `${c.code} is not retried`);
      const end = session()
        .transcript.snapshot()
        .items.find((i: any) => i.kind === 'run_end');
      assert.ok(end?.actions.includes(c.action), `${c.code} run_end actions: ${end?.actions}`);
      assert.ok(!end?.actions.includes('set_api_key'), `${c.code} run_end actions: ${end?.actions}`);
    }
  });

  it('the model disappearing (its extension unregisters) turns the status back into what to do', async () => {
    await useScriptedModel();
    await setSetting('model', MODEL_ID);
    await waitFor(() => status().configured && status().model === MODEL_ID, 'the chosen model');
    lm.unregister();
    await waitFor(() => !status().configured, 'the status to notice the model is gone');
    assert.match(status().problem ?? '', new RegExp(`VS Code has no chat model "${MODEL_ID}".*Select Model`));
    const report = await api.testApi.controller.startRun('send', 'Hello?');
    assert.strictEqual(report, undefined, 'no run without a model');
    await setSetting('model', '');
  });
});
