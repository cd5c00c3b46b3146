// Shared helpers for the end-to-end task tests: the extension's test API, scripted-model assertions.
// (Not a *.test.ts file: the runner only loads those; this is bundled into each test that imports it.)
import * as vscode from 'vscode';
import { activateForge, allTabs, closeAllEditors, llm, waitFor } from '../helpers';

/** The slice of activate()'s return value these tests use (typed loosely: the bundles differ). */
export interface ForgeApi {
  diffApproval: any;
  approvals: {
    pending(): Array<{ id: string; toolName: string; toolCallId: string; taskId: string }>;
    resolve(id: string, decision: unknown): Promise<boolean>;
    onDidChange(l: (e: { type: string; request: { toolName: string; id: string } }) => void): { dispose(): void };
  };
  activationMs: number;
  statusBar: { text: string };
  testApi: {
    controller: any;
    panel: any;
    store: any;
    journal: any;
    model: { configured: boolean };
    manager: any;
    /** The background initialisation (task store, journal, memory, restored task). */
    ready: Promise<void>;
    modelReady: Promise<void>;
    simulateReload(
      record?: unknown,
      opts?: { beforeReopen?: () => Promise<void> },
    ): Promise<{ manager: any; restored: any; resumed?: Promise<any> }>;
    listVscodeLmModels(): Promise<unknown[]>;
  };
}

export async function forge(): Promise<ForgeApi> {
  const api = await activateForge<ForgeApi>();
  // activate() returns before the disk work is done: wait for it (and for the model) before using the internals.
  await api.testApi.ready;
  await api.testApi.modelReady;
  return api;
}

/** Starts a fresh task and scripts the model's turns. */
export async function freshTask(api: ForgeApi, turns: unknown[]): Promise<void> {
  await waitFor(() => !api.testApi.manager.current.running, 'the previous run to end');
  api.testApi.controller.newTask();
  await llm.reset();
  await llm.script(turns);
}

/** Waits for a pending approval of `toolName`. */
export function pendingApproval(api: ForgeApi, toolName: string, timeoutMs = 15_000) {
  return waitFor(
    () => api.approvals.pending().find((r) => r.toolName === toolName),
    `an approval request for ${toolName}`,
    timeoutMs,
  );
}

/** The content of the tool result the model received for `toolCallId` (OpenAI wire format). */
export async function toolResultSeenByModel(toolCallId: string): Promise<string | undefined> {
  const requests = await llm.requests();
  for (const r of requests.slice().reverse()) {
    const msg = (r.body?.messages ?? []).find((m: any) => m.role === 'tool' && m.tool_call_id === toolCallId);
    if (msg) return typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content);
  }
  return undefined;
}

/** Every assistant tool call in the history has a result (nothing dangling). */
export function historyIsConsistent(history: any[]): boolean {
  const results = new Set(history.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  return history.every((m) => m.role !== 'assistant' || (m.toolCalls ?? []).every((c: any) => results.has(c.id)));
}

/**
 * Sets a forge.* setting in the workspace (default) or, `user`, in the user settings: a setting that widens what
 * Forge may do (autoApprove, the sandbox, command lists, endpoints) applies from the workspace only once the user
 * allowed it there, so tests that want it in effect set it as the user's.
 */
export async function setSetting(
  key: string,
  value: unknown,
  scope: 'workspace' | 'user' = 'workspace',
): Promise<void> {
  await vscode.workspace
    .getConfiguration('forge')
    .update(key, value, scope === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace);
  // In a remote extension host the new value arrives with the change event, a little after update() resolves.
  const want = JSON.stringify(value ?? vscode.workspace.getConfiguration('forge').inspect(key)?.defaultValue);
  await waitFor(
    () => JSON.stringify(vscode.workspace.getConfiguration('forge').get(key)) === want,
    `setting forge.${key} to apply`,
  );
}

/** The model's last turn: task_completion with `result` (a fresh call id each time unless one is given). */
export function done(result: string, id = `done-${Math.random().toString(36).slice(2, 8)}`) {
  return { toolCalls: [{ id, name: 'task_completion', args: { result } }] };
}

/** The open diff tab of a Forge proposal, if any. */
export function proposalDiffTab(): vscode.Tab | undefined {
  return allTabs().find(
    (t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'forge-proposed',
  );
}

/** afterEach: a failed test must not leave a run waiting for the next one (approvals rejected, run stopped, editors closed). */
export async function endLeftoverRun(api: ForgeApi): Promise<void> {
  const session = api.testApi.manager.current;
  if (session.running) {
    for (const r of api.approvals.pending())
      await api.approvals.resolve(r.id, { kind: 'reject', reason: 'test cleanup' });
    session.stop();
    await waitFor(() => !session.running, 'the run to stop');
  }
  await closeAllEditors();
}
