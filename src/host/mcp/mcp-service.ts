// MCP in VS Code: servers from each folder's `.vscode/mcp.json` and the forge.mcp.servers setting (same shape),
// ${input:...} values asked once and kept in SecretStorage, workspace trust honoured, the manager reconfigured
// when either changes, and resources queued to be attached to the next message.
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  isAutoApproved,
  literalSecrets,
  parseMcpConfig,
  resolveSpec,
  type McpInput,
  type McpServerSpec,
} from '../../core/mcp/config';
import { promptResultToText, type McpPromptInfo } from '../../core/mcp/prompts';
import type { Logger } from '../logger';
import { describePermission, PERMISSION_PENDING } from '../../core/mcp/permission';
import { MCP_JSON, readWorkspaceMcpConfig, withEnvFile, type EnvFileSnapshot } from '../../node/mcp/config-files';
import { McpServerConsent } from '../../node/mcp/consent';
import { McpManager } from '../../node/mcp/manager';
import { scrubEnv } from '../../node/sandbox/env';
import { readSettings } from '../settings';
import { errorText } from '../../core/error-text';
import { plural } from '../../core/plural';

export { MCP_JSON };
const SECRET_PREFIX = 'forge.mcp.input.';
const firstFolder = () => vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;

export class McpService implements vscode.Disposable {
  readonly manager: McpManager;
  private inputs = new Map<string, McpInput>();
  private readonly asking = new Map<string, Promise<string | undefined>>();
  private readonly subs: vscode.Disposable[] = [];
  private attachments: { label: string; text: string }[] = [];
  private loading: Promise<void> = Promise.resolve();
  private specs: McpServerSpec[] = [];
  /** Workspace servers whose permission question is showing. */
  private readonly asked = new Set<string>();
  /** The answers per workspace, for each server's whole configuration (workspaceState). */
  private readonly consent?: McpServerConsent;
  /** Called when an attachment is queued or sent (the panel shows the queue). */
  onAttachmentsChanged?: () => void;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
    version: string,
    state?: vscode.Memento,
  ) {
    const cwd = firstFolder();
    if (state)
      this.consent = new McpServerConsent(state, firstFolder, () => ({
        env: (name) => process.env[name],
        workspaceFolder: firstFolder(),
        userHome: os.homedir(),
      }));
    this.manager = new McpManager({
      log: { debug: (m) => log.debug(m), info: (m) => log.info(m), warn: (m) => log.warn(m) },
      resolve: (spec) => this.resolve(spec),
      baseEnv: () => scrubEnv(process.env, readSettings().sandbox.envAllowList).env,
      cwd,
      callTimeoutMs: () =>
        Math.max(1, Number(vscode.workspace.getConfiguration('forge.mcp').get('callTimeoutSeconds')) || 60) * 1000,
      // A workspace's forge.mcp.autoApprove widens only with the user's consent (readSettings takes it into account).
      autoApproved: (server, tool) => isAutoApproved(readSettings().mcpAutoApprove, server, tool),
      clientVersion: version,
    });
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${MCP_JSON}`);
    const reload = () => this.reload();
    this.subs.push(
      watcher,
      watcher.onDidChange(reload),
      watcher.onDidCreate(reload),
      watcher.onDidDelete(reload),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('forge.mcp.servers')) reload();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(reload),
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
    );
    reload();
  }

  /** Resolves when the configuration read last has been applied. */
  ready(): Promise<void> {
    return this.loading;
  }

  reload(): void {
    this.loading = this.loading
      .then(() => this.load())
      .catch((err) => this.log.error(`MCP configuration failed: ${errorText(err)}`));
  }

  private async load(): Promise<void> {
    const specs: McpServerSpec[] = [];
    const inputs = new Map<string, McpInput>();
    const problems: string[] = [];
    if (!vscode.workspace.isTrusted) {
      this.log.info('MCP servers are off in an untrusted workspace.');
      await this.manager.configure([]);
      return;
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const file = path.join(folder.uri.fsPath, MCP_JSON);
      const parsed = await readWorkspaceMcpConfig(folder.uri.fsPath, vscode.workspace.asRelativePath(file, true));
      if (!parsed) continue;
      specs.push(...parsed.servers);
      for (const i of parsed.inputs) inputs.set(i.id, i);
      problems.push(...parsed.problems);
    }
    // User settings are the user's own; workspace settings came with the repository and ask before a start, like
    // mcp.json (the workspace value wins for a name in both).
    const c = vscode.workspace.getConfiguration('forge.mcp');
    const servers = c.inspect<Record<string, unknown>>('servers');
    const inputsSetting = c.get('inputs') ?? [];
    const layers: [unknown, string][] = [
      [{ ...(servers?.workspaceValue ?? {}), ...(servers?.workspaceFolderValue ?? {}) }, 'workspace settings'],
      [servers?.globalValue ?? {}, 'settings'],
    ];
    for (const [value, source] of layers) {
      const fromSettings = parseMcpConfig({ servers: value, inputs: inputsSetting }, source);
      for (const s of fromSettings.servers) if (!specs.some((x) => x.name === s.name)) specs.push(s);
      for (const i of fromSettings.inputs) if (!inputs.has(i.id)) inputs.set(i.id, i);
      problems.push(...fromSettings.problems);
    }
    for (const spec of specs) {
      const names = literalSecrets(spec);
      if (names.length)
        problems.push(
          `${spec.source}: server "${spec.name}" has a literal secret in ${names.join(', ')}; use \${input:id} (kept in Secret Storage) or \${env:NAME} instead`,
        );
    }
    for (const p of problems) this.log.warn(`MCP: ${p}`);
    this.inputs = inputs;
    this.specs = specs;
    await this.manager.configure(specs);
    if (specs.length)
      this.log.info(
        `MCP: ${plural(specs.length, 'server')} configured (${specs.map((s) => s.name).join(', ')}); they start on first use.`,
      );
  }

  /**
   * Marks the workspace server `name` as allowed to start in its configuration as it is now (the user chose Start;
   * a refusal of it is forgotten).
   */
  async allowServer(name: string): Promise<void> {
    await this.ready();
    const spec = this.specs.find((s) => s.name === name);
    if (!spec || !this.consent) return;
    await this.consent.allow((await this.consent.check(spec)).key);
  }

  /**
   * A server from the workspace's own mcp.json or workspace settings runs code the repository chose: the first start
   * asks the user once, and so does any change of what runs (transport, command, args, cwd, env, envFile and its
   * content, url, headers); the answer is kept per workspace. User settings are the user's own. Resolves with the
   * envFile as read for the question, which the start then uses.
   */
  private async confirmStart(spec: McpServerSpec): Promise<EnvFileSnapshot | undefined> {
    if (spec.source === 'settings' || !this.consent) return undefined;
    const consent = this.consent;
    const { key, state, envFile } = await consent.check(spec);
    if (state === 'allowed') return envFile;
    if (state === 'refused') throw new Error('you chose not to start it (Forge: Show MCP Servers > Start to allow it)');
    // Never holds up a run: this run goes without the server; "Start" starts it for the next one.
    if (!this.asked.has(key)) {
      this.asked.add(key);
      void vscode.window
        .showWarningMessage(
          `Forge: start the MCP server "${spec.name}" from ${spec.source}? It ${describePermission(spec)}.`,
          'Start',
          "Don't Start",
        )
        .then(async (pick) => {
          this.asked.delete(key);
          if (pick === "Don't Start") await consent.refuse(key);
          if (pick !== 'Start') return;
          // The configuration the question showed: if it changed while the question was open, the next start asks again.
          await consent.allow(key);
          await this.manager
            .connection(spec.name)
            ?.restart()
            .catch(() => undefined);
        });
    }
    throw new Error(`${PERMISSION_PENDING} (see the notification, or Forge: Show MCP Servers)`);
  }

  private async resolve(spec: McpServerSpec): Promise<McpServerSpec> {
    const envFile = await this.confirmStart(spec);
    const folder = firstFolder();
    const resolved = await resolveSpec(spec, {
      env: (name) => process.env[name],
      workspaceFolder: folder,
      userHome: os.homedir(),
      input: (id) => this.input(id, spec.name),
    });
    return withEnvFile(resolved, folder, envFile);
  }

  /** ${input:id}: SecretStorage, else asked once (concurrent starts share the question) and stored. */
  private input(id: string, server: string): Promise<string | undefined> {
    let pending = this.asking.get(id);
    if (!pending) {
      pending = (async () => {
        const stored = await this.secrets.get(SECRET_PREFIX + id);
        if (stored !== undefined) return stored;
        const def = this.inputs.get(id);
        const value = await vscode.window.showInputBox({
          title: `MCP server "${server}"`,
          prompt: def?.description ?? `Value for \${input:${id}}`,
          password: def?.password ?? true,
          value: def?.default,
          ignoreFocusOut: true,
        });
        if (value !== undefined) await this.secrets.store(SECRET_PREFIX + id, value);
        return value;
      })().finally(() => this.asking.delete(id));
      this.asking.set(id, pending);
    }
    return pending;
  }

  /** Forgets a stored ${input:...} value (asked again at the next start). */
  async forgetInput(id: string): Promise<void> {
    await this.secrets.delete(SECRET_PREFIX + id);
  }

  /** MCP prompts of every server, for slash commands (servers start if needed). */
  listPrompts(signal?: AbortSignal, opts: { runningOnly?: boolean } = {}): Promise<McpPromptInfo[]> {
    return this.ready().then(() => this.manager.listPrompts(signal, opts));
  }

  /** An MCP prompt expanded into the text of a user message (for a slash command). */
  async expandPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<string> {
    await this.ready();
    return promptResultToText(await this.manager.getPrompt(server, name, args, signal));
  }

  /** Queues context for the next message (an attached resource). */
  attach(label: string, text: string): void {
    this.attachments.push({ label, text });
    this.onAttachmentsChanged?.();
  }

  get pendingAttachments(): string[] {
    return this.attachments.map((a) => a.label);
  }

  /** The next message with the queued attachments after it (and the queue emptied). */
  withAttachments(message: string): string {
    if (!this.attachments.length) return message;
    const extra = this.attachments.map((a) => a.text).join('\n\n');
    this.attachments = [];
    this.onAttachmentsChanged?.();
    return `${message}\n\n${extra}`;
  }

  dispose(): void {
    vscode.Disposable.from(...this.subs).dispose();
    void this.manager.dispose();
  }
}
