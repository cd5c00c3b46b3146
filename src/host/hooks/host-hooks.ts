// Hooks in VS Code: the user's own (~/.claude/settings.json and the forge.hooks setting) run as they are; the
// workspace's (.claude/settings.json, .forge/hooks.json, .github/hooks/*.json) run only after the user allowed them
// for this workspace, asked once and again whenever what runs changes (the same per-workspace answer as an MCP
// server's, kept in workspaceState, never in the workspace). Files are watched; failures go to the log and a warning.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { hookPermissionKey, parseHookSettings, type ParsedHooks } from '../../core/hooks/config';
import type { HookCommand } from '../../core/hooks/types';
import { HookService } from '../../node/hooks/hook-service';
import type { CommandSandbox } from '../../node/sandbox/command-sandbox';
import type { Logger } from '../logger';
import { noun, plural } from '../../core/plural';

/** workspaceState keys: the hook permission keys the user allowed / refused here. */
const ALLOWED = 'forge.hooks.allowed';
const REFUSED = 'forge.hooks.refused';
const WATCHED = ['**/.claude/settings*.json', '**/.forge/hooks.json', '**/.github/hooks/*.json'];

function firstFolder(): string {
  return (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? os.homedir();
}

/** forge.hooks from the user's settings only (a workspace's value would be the repository granting itself hooks). */
function settingHooks(): ParsedHooks {
  const value = vscode.workspace.getConfiguration('forge').inspect<unknown>('hooks')?.globalValue;
  return value
    ? parseHookSettings({ hooks: value }, 'user', 'setting forge.hooks', process.platform)
    : { hooks: [], problems: [] };
}

/** What the hooks asked about do, beyond commands (which run in the sandbox): said before the user allows them. */
export function hookKinds(hooks: readonly HookCommand[]): string {
  const types = new Set(hooks.map((h) => h.type ?? 'command'));
  const parts = [
    types.has('command') ? 'Commands run in the sandbox.' : '',
    types.has('http') ? 'http hooks send each event (secrets redacted) to their URL.' : '',
    types.has('prompt') ? "prompt hooks ask the task's model (they spend tokens)." : '',
    types.has('mcp_tool') ? 'mcp_tool hooks call a running MCP server.' : '',
  ];
  return parts
    .filter(Boolean)
    .map((p) => `${p} `)
    .join('');
}

export class HostHooks implements vscode.Disposable {
  readonly service: HookService;
  private readonly subs: vscode.Disposable[] = [];
  private readonly asking = new Set<string>();
  private readonly shown = new Set<string>();

  constructor(
    private readonly state: vscode.Memento,
    sandbox: CommandSandbox,
    private readonly log: Logger,
  ) {
    this.service = new HookService({
      root: firstFolder,
      sandbox,
      userHooks: settingHooks,
      allowed: (_h, key) => this.answer(key),
      ask: (pending) => this.ask(pending),
      warn: (m) => this.warn(m),
      onRun: (hook, run) =>
        log.debug(`hook ${hook.event} "${hook.command}" (${hook.source}): exit ${run.exitCode ?? '-'} in ${run.ms} ms`),
    });
    const reload = () => this.service.reload();
    for (const glob of WATCHED) {
      const w = vscode.workspace.createFileSystemWatcher(glob);
      this.subs.push(w, w.onDidCreate(reload), w.onDidChange(reload), w.onDidDelete(reload));
    }
    this.subs.push(
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('forge.hooks') && reload()),
      vscode.workspace.onDidGrantWorkspaceTrust(reload),
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
    );
  }

  private list(key: string): string[] {
    const v = this.state.get<unknown>(key);
    return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
  }

  private answer(key: string): boolean | undefined {
    if (!vscode.workspace.isTrusted) return false;
    if (this.list(ALLOWED).includes(key)) return true;
    if (this.list(REFUSED).includes(key)) return false;
    return undefined;
  }

  /** Allows these workspace hooks (as they are now) here; later reads use them. */
  async allow(keys: readonly string[]): Promise<void> {
    await this.state.update(ALLOWED, [...new Set([...this.list(ALLOWED), ...keys])]);
    await this.state.update(
      REFUSED,
      this.list(REFUSED).filter((k) => !keys.includes(k)),
    );
    this.service.reload();
  }

  async refuse(keys: readonly string[]): Promise<void> {
    await this.state.update(REFUSED, [...new Set([...this.list(REFUSED), ...keys])]);
    await this.state.update(
      ALLOWED,
      this.list(ALLOWED).filter((k) => !keys.includes(k)),
    );
    this.service.reload();
  }

  /** Every hook with its state, for the palette view and tests. */
  async entries(): Promise<{ hook: HookCommand; key: string; allowed: boolean | undefined }[]> {
    return this.service.list();
  }

  private ask(pending: readonly HookCommand[]): void {
    const all = pending.map((h) => ({ h, key: hookPermissionKey(h) }));
    const id = all.map((a) => a.key).join('\n');
    if (this.asking.has(id)) return;
    this.asking.add(id);
    const what = pending
      .slice(0, 3)
      .map((h) => `${h.event}: ${h.command.length > 60 ? `${h.command.slice(0, 57)}...` : h.command}`)
      .join('; ');
    this.log.info(
      `hooks waiting for permission:\n${pending.map((h) => `  ${h.event} [${h.matcher || '*'}] ${h.command} (${h.source})`).join('\n')}`,
    );
    void vscode.window
      .showWarningMessage(
        `Forge: this workspace has ${plural(pending.length, 'hook')} that ${noun(pending.length, 'runs', 'run')} around the agent's actions (${what}${pending.length > 3 ? '; ...' : ''}). ${hookKinds(pending)}Run them?`,
        'Allow',
        "Don't Allow",
      )
      .then(async (pick) => {
        this.asking.delete(id);
        const keys = all.map((a) => a.key);
        if (pick === 'Allow') await this.allow(keys);
        else if (pick === "Don't Allow") await this.refuse(keys);
      });
  }

  private warn(message: string): void {
    this.log.warn(message);
    const key = message.slice(0, 160);
    if (this.shown.has(key)) return;
    this.shown.add(key);
    void vscode.window.showWarningMessage(`Forge: ${message}`, 'Show Logs').then((pick) => {
      if (pick === 'Show Logs') void vscode.commands.executeCommand('forge.showLogs');
    });
  }

  /** Palette: each hook with its state; picking a workspace hook allows or stops it. */
  async manage(): Promise<void> {
    const entries = await this.entries();
    if (!entries.length) {
      void vscode.window.showInformationMessage(
        "Forge: no hooks. Hooks come from ~/.claude/settings.json, the forge.hooks setting and the workspace's .claude/settings.json, .forge/hooks.json or .github/hooks/*.json.",
      );
      return;
    }
    const items = entries.map((e) => ({
      label: `${e.allowed ? '$(check)' : e.allowed === false ? '$(circle-slash)' : '$(question)'} ${e.hook.event}${e.hook.matcher ? ` [${e.hook.matcher}]` : ''}`,
      description: e.hook.command,
      detail: `${e.hook.source} · ${e.hook.scope === 'user' ? 'yours: runs' : e.allowed ? 'workspace: allowed (pick to stop it)' : 'workspace: not allowed (pick to allow it)'}`,
      entry: e,
    }));
    const pick = await vscode.window.showQuickPick(items, { title: 'Forge: Hooks', matchOnDescription: true });
    if (!pick || pick.entry.hook.scope === 'user') return;
    if (pick.entry.allowed) await this.refuse([pick.entry.key]);
    else await this.allow([pick.entry.key]);
  }

  dispose(): void {
    vscode.Disposable.from(...this.subs).dispose();
  }
}
