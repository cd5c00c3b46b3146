// Helpers for integration tests running inside the real VS Code extension host.
import * as path from 'node:path';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'forge-dev.forge-agent';

/** The temp copy of test/fixtures/sample-workspace opened by the harness. */
export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder open');
  return folder.uri.fsPath;
}

export function wsPath(...parts: string[]): string {
  return path.join(workspaceRoot(), ...parts);
}

/** Activates Forge and returns its exports (the test API the extension returns from activate()). */
export async function activateForge<T = any>(): Promise<T> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} not loaded`);
  const api = (await ext.activate()) as T;
  // activate() registers everything and opens the task store etc. in the background: the internals the tests
  // use (controller, manager, store) exist once testApi.ready resolves.
  await (api as { testApi?: { ready?: Promise<unknown> } } | undefined)?.testApi?.ready;
  return api;
}

/** Polls `probe` until it returns a truthy value (UI state such as tabs updates asynchronously). */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function readText(p: string): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(p)));
}

export function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/**
 * Control client for the loopback LLM server the harness runs (test/support/llm-server.ts). The workspace
 * settings already point forge.provider=openai-compatible / forge.baseUrl at it.
 */
export const llm = {
  get url(): string {
    const u = process.env.FORGE_TEST_LLM_URL;
    if (!u) throw new Error('FORGE_TEST_LLM_URL is not set (the harness did not start the LLM server)');
    return u;
  },
  /** Replaces the queue of scripted turns (see test/support/llm-server/types.ts: LlmTurn). */
  async script(turns: unknown[]): Promise<void> {
    const r = await fetch(`${llm.url}/__script`, {
      method: 'POST',
      body: JSON.stringify(turns),
      headers: { 'content-type': 'application/json' },
    });
    if (!r.ok) throw new Error(`llm /__script: ${r.status}`);
  },
  /** Appends turns to the queue. */
  async enqueue(turns: unknown[]): Promise<void> {
    const r = await fetch(`${llm.url}/__script`, {
      method: 'POST',
      body: JSON.stringify({ append: true, turns }),
      headers: { 'content-type': 'application/json' },
    });
    if (!r.ok) throw new Error(`llm /__script: ${r.status}`);
  },
  /** Every model request the server received (provider, path, parsed body). */
  async requests(): Promise<Array<{ provider: string; path: string; body: any; stream: boolean }>> {
    return (await fetch(`${llm.url}/__requests`)).json() as Promise<any>;
  },
  async reset(): Promise<void> {
    await fetch(`${llm.url}/__reset`, { method: 'POST' });
  },
};
