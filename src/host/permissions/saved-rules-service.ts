// Saved permission rules in VS Code: the user's (globalState) and this workspace's (workspaceState), offered after an
// "Always for this task", listed in one palette view where each can be removed, with the three presets people
// understand. Claude Code's `permissions` are read too: the user's ~/.claude/settings.json as the user's own; a
// repository's .claude/settings.json deny rules always apply, its allow rules only once the user adopts them.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../core/safety/approval';
import { ConfinedReader } from '../../core/safety/confined-read';
import { parseClaudePermissions, type SavedRule } from '../../core/safety/saved-rules';
import type { ApprovalDecision } from '../../core/tools/types';
import type { WorkspaceFs } from '../../core/workspace/types';
import type { Logger } from '../logger';
import { errorText } from '../../core/error-text';

const KEY = 'forge.permissions.rules';
const CLAUDE_FILES = ['.claude/settings.json', '.claude/settings.local.json'];

function isRule(v: unknown): v is SavedRule {
  const r = v as Partial<SavedRule> | undefined;
  return (
    !!r &&
    typeof r.pattern === 'string' &&
    r.pattern.length > 0 &&
    (r.kind === 'command' || r.kind === 'edit' || r.kind === 'mcp' || r.kind === 'web') &&
    (r.action === 'allow' || r.action === 'deny')
  );
}

function label(r: SavedRule): string {
  const what = { command: 'command', edit: 'edits in', mcp: 'MCP tool', web: 'web host' }[r.kind];
  const pattern = r.kind === 'edit' ? r.pattern.replace(/^\.\//, '') : r.pattern;
  return `${r.action === 'deny' ? 'Deny' : 'Allow'} ${what} ${pattern}`;
}

/** What "Always allow" would save for an approved call, or undefined when nothing fits. */
export function ruleFor(
  request: Pick<ApprovalRequest, 'toolName' | 'args' | 'preview'>,
): Omit<SavedRule, 'scope' | 'source'> | undefined {
  const args = (request.args ?? {}) as { path?: unknown; url?: unknown };
  const p = request.preview;
  if (request.toolName === 'execute_command' && p?.kind === 'command' && p.grant && !p.grant.includes(','))
    return { kind: 'command', pattern: p.grant, action: 'allow' };
  if ((request.toolName === 'write_file' || request.toolName === 'apply_diff') && typeof args.path === 'string') {
    const dir = path.posix.dirname(args.path.replace(/\\/g, '/').replace(/^\.\//, ''));
    return { kind: 'edit', pattern: dir === '.' ? '*' : `${dir}/**`, action: 'allow' };
  }
  if (request.toolName.startsWith('mcp__')) return { kind: 'mcp', pattern: request.toolName, action: 'allow' };
  if (request.toolName === 'web_fetch' && typeof args.url === 'string') {
    try {
      return { kind: 'web', pattern: new URL(args.url).hostname.toLowerCase(), action: 'allow' };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export class SavedRulesService implements vscode.Disposable {
  private claudeUser: SavedRule[] = [];
  private claudeWorkspace: SavedRule[] = [];
  private readonly subs: vscode.Disposable[] = [];
  private readonly offered = new Set<string>();

  constructor(
    private readonly global: vscode.Memento,
    private readonly workspace: vscode.Memento,
    private readonly fs: WorkspaceFs,
    private readonly log: Logger,
  ) {
    void this.reload();
    for (const f of CLAUDE_FILES) {
      const w = vscode.workspace.createFileSystemWatcher(`**/${f}`);
      const r = () => void this.reload();
      this.subs.push(w, w.onDidCreate(r), w.onDidChange(r), w.onDidDelete(r));
    }
  }

  /** Re-reads Claude Code's permission lists (the user's file and the workspace's). */
  async reload(): Promise<void> {
    const userFile = path.join(os.homedir(), '.claude', 'settings.json');
    const user = await fsp.readFile(userFile, 'utf8').catch(() => undefined);
    this.claudeUser = user ? this.parse(user, 'user', '~/.claude/settings.json') : [];
    const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    const rules: SavedRule[] = [];
    if (folder) {
      const reader = new ConfinedReader(this.fs, { warn: (m) => this.log.warn(m) });
      for (const rel of CLAUDE_FILES) {
        const r = await reader.readText(path.join(folder, ...rel.split('/')), { maxBytes: 256 * 1024 });
        if (r.ok) rules.push(...this.parse(r.text, 'workspace', rel));
      }
    }
    this.claudeWorkspace = rules;
  }

  private parse(text: string, scope: SavedRule['scope'], source: string): SavedRule[] {
    try {
      const json = JSON.parse(text) as { permissions?: unknown };
      const parsed = parseClaudePermissions(json.permissions, scope, source);
      for (const s of parsed.skipped) this.log.debug(`${source}: permission rule with no Forge equivalent: ${s}`);
      return parsed.rules;
    } catch (err) {
      this.log.warn(`${source}: not valid JSON (${errorText(err)})`);
      return [];
    }
  }

  private saved(m: vscode.Memento, scope: SavedRule['scope']): SavedRule[] {
    const v = m.get<unknown>(KEY);
    return Array.isArray(v) ? v.filter(isRule).map((r) => ({ ...r, scope })) : [];
  }

  /** The rules in effect: saved ones, the user's Claude rules, the workspace's Claude deny rules. */
  readonly rules = (): SavedRule[] => [
    ...this.saved(this.global, 'user'),
    ...(vscode.workspace.isTrusted ? this.saved(this.workspace, 'workspace') : []),
    ...this.claudeUser,
    ...this.claudeWorkspace.filter((r) => r.action === 'deny'),
  ];

  /** The workspace's Claude allow rules the user has not adopted (listed, never applied). */
  suggested(): SavedRule[] {
    const mine = this.saved(this.workspace, 'workspace');
    return this.claudeWorkspace.filter(
      (r) => r.action === 'allow' && !mine.some((m) => m.kind === r.kind && m.pattern === r.pattern),
    );
  }

  async save(rule: Omit<SavedRule, 'source'>): Promise<void> {
    const m = rule.scope === 'user' ? this.global : this.workspace;
    const list = this.saved(m, rule.scope).filter((r) => !(r.kind === rule.kind && r.pattern === rule.pattern));
    await m.update(KEY, [...list, { ...rule, source: 'saved' }]);
  }

  async remove(rule: SavedRule): Promise<void> {
    const m = rule.scope === 'user' ? this.global : this.workspace;
    await m.update(
      KEY,
      this.saved(m, rule.scope).filter(
        (r) => !(r.kind === rule.kind && r.pattern === rule.pattern && r.action === rule.action),
      ),
    );
  }

  /** After "Always for this task": offers to keep the rule beyond the task (never for a control-plane call). */
  offer(request: ApprovalRequest, decision: ApprovalDecision): void {
    if (decision.kind !== 'approve' || decision.scope !== 'task' || decision.auto || request.sensitive) return;
    if (!vscode.workspace.isTrusted) return;
    const rule = ruleFor(request);
    if (!rule) return;
    const id = `${rule.kind}:${rule.pattern}`;
    if (this.offered.has(id) || this.rules().some((r) => r.kind === rule.kind && r.pattern === rule.pattern)) return;
    this.offered.add(id);
    void vscode.window
      .showInformationMessage(
        `Forge: keep "${label({ ...rule, scope: 'workspace', source: '' })}" beyond this task?`,
        'For This Workspace',
        'For All Workspaces',
      )
      .then((pick) => {
        if (pick === 'For This Workspace') return this.save({ ...rule, scope: 'workspace' });
        if (pick === 'For All Workspaces') return this.save({ ...rule, scope: 'user' });
        return undefined;
      });
  }

  /** The palette view: presets, then every rule (pick one to remove it), then the repository's suggestions. */
  async manage(sandboxed: () => boolean): Promise<void> {
    type Item = vscode.QuickPickItem & { run?: () => Promise<unknown> };
    const cfg = vscode.workspace.getConfiguration('forge');
    const auto = cfg.get<{ write?: boolean; execute?: boolean }>('autoApprove') ?? {};
    const preset = (write: boolean, execute: boolean) => async () =>
      cfg.update('autoApprove', { read: true, write, execute, network: false }, vscode.ConfigurationTarget.Global);
    const current = (w: boolean, e: boolean) => (!!auto.write === w && !!auto.execute === e ? '(current)' : '');
    const items: Item[] = [
      { label: 'Presets', kind: vscode.QuickPickItemKind.Separator },
      {
        label: '$(shield) Ask for everything',
        description: current(false, false),
        detail: 'Edits, commands and network calls ask; reads run.',
        run: preset(false, false),
      },
      {
        label: '$(edit) Edits without asking',
        description: current(true, false),
        detail: 'Edits apply at once (recorded, undoable); commands and network ask.',
        run: preset(true, false),
      },
      {
        label: '$(vm) Everything inside the sandbox without asking',
        description: current(true, true),
        detail: 'Edits and contained commands run at once; network and the control plane still ask.',
        run: async () => {
          if (!sandboxed()) {
            void vscode.window.showWarningMessage('Forge: there is no sandbox here, so commands keep asking.');
            return;
          }
          await preset(true, true)();
        },
      },
      { label: 'Rules in effect', kind: vscode.QuickPickItemKind.Separator },
    ];
    for (const r of this.rules()) {
      const removable = r.source === 'saved';
      items.push({
        label: `${r.action === 'deny' ? '$(circle-slash)' : '$(check)'} ${label(r)}`,
        description: r.scope === 'user' ? 'all workspaces' : 'this workspace',
        detail: removable ? `${r.source} · pick to remove` : `from ${r.source} (edit that file to change it)`,
        ...(removable ? { run: () => this.remove(r) } : {}),
      });
    }
    const suggested = this.suggested();
    if (suggested.length) {
      items.push({
        label: 'Suggested by the repository',
        kind: vscode.QuickPickItemKind.Separator,
      });
      for (const r of suggested)
        items.push({
          label: `$(question) ${label(r)}`,
          description: r.source,
          detail: 'not used until you pick it for this workspace',
          run: () => this.save({ kind: r.kind, pattern: r.pattern, action: 'allow', scope: 'workspace' }),
        });
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Forge: Permissions', matchOnDetail: true });
    await pick?.run?.();
  }

  dispose(): void {
    vscode.Disposable.from(...this.subs).dispose();
  }
}
