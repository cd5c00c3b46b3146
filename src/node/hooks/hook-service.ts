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
import { NodeHookExecutor } from './hook-executor';
import { readUserHooks, readWorkspaceHooks } from './hook-files';

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

export class HookService {
  private cache: Promise<HookCommand[]> | undefined;
  private readonly warned = new Set<string>();
  readonly port: HookPort;
  readonly tools: ToolHooks;

  constructor(private readonly opts: HookServiceOptions) {
    const executor = new NodeHookExecutor({ root: opts.root, ...(opts.sandbox ? { sandbox: opts.sandbox } : {}) });
    this.port = new HookDispatcher({
      hooks: () => this.hooks(),
      executor,
      common: () => ({ cwd: opts.root(), permission_mode: 'default', transcript_path: '' }),
      ...(opts.onRun ? { onRun: opts.onRun } : {}),
    });
    this.tools = new ToolHooks(this.port, { notice: (m) => opts.warn(`hook: ${m}`) });
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
  wrapTools(tools: readonly Tool[]): Tool[] {
    const extra = loopControlTools.filter((c) => !tools.some((t) => t.name === c.name));
    return [...tools, ...extra].map((t) => this.tools.wrap(t));
  }

  wrapSources(sources: readonly ToolSource[]): ToolSource[] {
    return sources.map((s) => this.tools.wrapSource(s));
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
