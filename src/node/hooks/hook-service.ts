// Hooks for one workspace, shared by the extension and the CLI: reads the user's and the workspace's hook files,
// keeps only the workspace hooks the user allowed (the surface decides how it asks), runs them contained, and hands
// the agent its hooked tools, the HookPort for prompt and compaction events, and a listener for Notification.
import { dedupeHooks, hookPermissionKey, type ParsedHooks } from '../../core/hooks/config';
import { HookDispatcher } from '../../core/hooks/dispatcher';
import { notificationFor } from '../../core/hooks/run-hooks';
import { ToolHooks } from '../../core/hooks/tool-hooks';
import type { HookCommand, HookPort, HookRun, HookVerdict } from '../../core/hooks/types';
import { loopControlTools } from '../../core/tools/loop-control';
import type { Tool, ToolSource } from '../../core/tools/types';
import type { CommandSandbox } from '../sandbox/command-sandbox';
import type { Model } from '../../core/model/types';
import { NodeHookExecutor } from './hook-executor';
import { readUserHooks, readWorkspaceHooks } from './hook-files';
import { HookRunners, type McpHookServers } from './hook-runners';

export interface HookServiceOptions {
  root: () => string;
  sandbox?: CommandSandbox;
  /** Whether the user allowed this workspace hook (by hookPermissionKey); undefined: not yet asked. */
  allowed(hook: HookCommand, key: string): boolean | undefined;
  /** Workspace hooks waiting for the user's answer (the surface asks; an answer takes effect at the next read). */
  ask?(pending: readonly HookCommand[]): void;
  /** The user's hooks from the surface's own settings (the extension's forge.hooks). */
  userHooks?(): ParsedHooks;
  /** Extra user hook files (the CLI's --hooks-file). */
  userFiles?: readonly string[];
  home?: string;
  /** Problems with the files and notices from the runs (failures, timeouts, messages): never silent. */
  warn(message: string): void;
  /** Each run, for the log. */
  onRun?(hook: HookCommand, run: HookRun, verdict: HookVerdict): void;
}

/** The port and tool wrapper of one model (prompt hooks ask the task's own model). */
interface Bound {
  port: HookPort;
  tools: ToolHooks;
}

export class HookService {
  private cache: Promise<HookCommand[]> | undefined;
  private readonly warned = new Set<string>();
  private readonly command: NodeHookExecutor;
  private readonly byModel = new WeakMap<Model, Bound>();
  private mcp: (() => McpHookServers | undefined) | undefined;
  /** Without a model: prompt hooks say they have none to ask. */
  readonly port: HookPort;
  readonly tools: ToolHooks;

  constructor(private readonly opts: HookServiceOptions) {
    this.command = new NodeHookExecutor({ root: opts.root, ...(opts.sandbox ? { sandbox: opts.sandbox } : {}) });
    ({ port: this.port, tools: this.tools } = this.bind(undefined));
  }

  private bind(model: Model | undefined): Bound {
    const executor = new HookRunners({
      command: this.command,
      ...(model ? { model } : {}),
      mcp: () => this.mcp?.(),
    });
    const dispatcher = new HookDispatcher({
      hooks: () => this.hooks(),
      executor,
      common: () => ({ cwd: this.opts.root(), permission_mode: 'default', transcript_path: '' }),
      ...(this.opts.onRun ? { onRun: this.opts.onRun } : {}),
    });
    const tools = new ToolHooks(dispatcher, { notice: (m) => this.opts.warn(`hook: ${m}`) });
    // wrapTool: delegate_task joins the tools after the surface wrapped them (node/surface/agents.ts).
    const port: HookPort = { fire: (e, i, s) => dispatcher.fire(e, i, s), wrapTool: (t) => tools.wrap(t) };
    return { port, tools };
  }

  /** The port and tool wrapper whose prompt hooks ask `model` (the task's own). */
  forModel(model: Model | undefined): Bound {
    if (!model) return { port: this.port, tools: this.tools };
    let b = this.byModel.get(model);
    if (!b) this.byModel.set(model, (b = this.bind(model)));
    return b;
  }

  /** The MCP servers mcp_tool hooks call (only running ones; set once the surface has its manager). */
  useMcp(servers: () => McpHookServers | undefined): void {
    this.mcp = servers;
  }

  /** Forget what was read: the files or the user's answers changed. */
  reload(): void {
    this.cache = undefined;
  }

  private warnOnce(m: string): void {
    if (this.warned.has(m)) return;
    this.warned.add(m);
    this.opts.warn(m);
  }

  /** Every hook in the files, with whether it may run ('user' hooks always may). */
  async list(): Promise<{ hook: HookCommand; key: string; allowed: boolean | undefined }[]> {
    const [user, ws] = await Promise.all([
      readUserHooks(this.opts.userFiles, this.opts.home),
      readWorkspaceHooks(this.opts.root()),
    ]);
    const own = this.opts.userHooks?.() ?? { hooks: [], problems: [] };
    for (const p of [...own.problems, ...user.problems, ...ws.problems]) this.warnOnce(`hooks: ${p}`);
    return dedupeHooks([...own.hooks, ...user.hooks, ...ws.hooks]).map((hook) => {
      const key = hookPermissionKey(hook);
      return { hook, key, allowed: hook.scope === 'user' ? true : this.opts.allowed(hook, key) };
    });
  }

  /** The hooks in effect: the user's, and the workspace's the user allowed. */
  hooks(): Promise<HookCommand[]> {
    this.cache ??= this.list().then((all) => {
      const pending = all.filter((h) => h.allowed === undefined).map((h) => h.hook);
      if (pending.length) this.opts.ask?.(pending);
      return all.filter((h) => h.allowed === true).map((h) => h.hook);
    });
    return this.cache;
  }

  /** The tools with their hooks, and the loop-control tools too (task_completion fires Stop). */
  wrapTools(tools: readonly Tool[], model?: Model): Tool[] {
    const extra = loopControlTools.filter((c) => !tools.some((t) => t.name === c.name));
    const hooks = this.forModel(model).tools;
    return [...tools, ...extra].map((t) => hooks.wrap(t));
  }

  wrapSources(sources: readonly ToolSource[], model?: Model): ToolSource[] {
    const hooks = this.forModel(model).tools;
    return sources.map((s) => hooks.wrapSource(s));
  }

  /** For agent.on(): Notification hooks when Forge waits for the user (never holds anything up). */
  readonly onAgentEvent = (event: { type: string }): void => {
    const n = notificationFor(event);
    if (!n) return;
    void this.port
      .fire('Notification', n, new AbortController().signal)
      .then((v) => v.notices.forEach((m) => this.opts.warn(`hook: ${m}`)))
      .catch(() => undefined);
  };
}
