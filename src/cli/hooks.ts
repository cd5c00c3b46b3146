// Hooks for the `forge` command line: the user's (~/.claude/settings.json, --hooks-file) run as they are; the
// workspace's run code the repository chose, so they run only with --allow-workspace-hooks or a yes at the terminal
// (asked once per run, naming each command); a CI run with neither leaves them off and says so.
import type { HookCommand } from '../core/hooks/types';
import { HookService } from '../node/hooks/hook-service';
import type { CommandSandbox } from '../node/sandbox/command-sandbox';
import { noun, plural } from '../core/plural';

interface CliHookOptions {
  workspace: string;
  sandbox: CommandSandbox;
  allowWorkspace: boolean;
  userFiles: readonly string[];
  ask?: (prompt: string, secret: boolean) => Promise<string | undefined>;
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void };
  home?: string;
}

function describe(h: HookCommand): string {
  return `  ${h.event}${h.matcher ? ` [${h.matcher}]` : ''}: ${h.command}  (${h.source})`;
}

/** The hook service, with the workspace's hooks allowed or not before the run starts. */
export async function createCliHooks(o: CliHookOptions): Promise<HookService> {
  const allowed = new Set<string>();
  const service = new HookService({
    root: () => o.workspace,
    sandbox: o.sandbox,
    userFiles: o.userFiles,
    ...(o.home ? { home: o.home } : {}),
    allowed: (_h, key) => allowed.has(key),
    warn: (m) => o.log.warn(m),
    onRun: (hook, run) =>
      o.log.debug(`hook ${hook.event} "${hook.command}": exit ${run.exitCode ?? '-'} in ${run.ms} ms`),
  });
  const all = await service.list();
  const workspace = all.filter((h) => h.hook.scope === 'workspace');
  if (workspace.length) {
    let yes = o.allowWorkspace;
    if (!yes && o.ask) {
      const answer = await o.ask(
        `This workspace has hooks (commands it runs contained; http hooks POST each event to their URL; prompt hooks ask the model), around the agent's actions:\n${workspace.map((h) => describe(h.hook)).join('\n')}\nRun them? [y/N] `,
        false,
      );
      yes = /^y(es)?$/i.test((answer ?? '').trim());
    }
    if (yes) for (const h of workspace) allowed.add(h.key);
    else
      o.log.warn(
        `${plural(workspace.length, 'workspace hook')} ${noun(workspace.length, 'does', 'do')} not run (--allow-workspace-hooks runs them): ${workspace.map((h) => h.hook.source).join(', ')}`,
      );
  }
  service.reload();
  return service;
}
