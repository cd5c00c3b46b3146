// Wires the core for one headless run: the Node workspace (fs, edits, commands in the OS sandbox), the model
// from flags/env, memory and project rules, the task store. Nothing here imports 'vscode' (a test checks the
// built bundle).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent, type AgentDeps } from '../core/loop/agent';
import type { AgentConfig } from '../core/loop/config';
import { openForgeMemory } from '../core/memory';
import type { MemoryPort } from '../core/memory/port';
import { costOf, priceFor } from '../core/model/pricing';
import type { Model, Usage } from '../core/model/types';
import type { Approver } from '../core/safety/approval';
import { WorkspaceSandbox } from '../core/safety/paths';
import type { AgentSnapshot } from '../core/tasks/snapshot';
import { TaskStore, type TaskRecord } from '../core/tasks/task-store';
import { createWorkspaceTools } from '../core/tools/builtin';
import type { Tool } from '../core/tools/types';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs } from '../node';
import { CommandSandbox } from '../node/sandbox/command-sandbox';
import { standingFromFlags } from './approvals';
import type { TaskWorktree } from '../node/worktrees';
import { createModel } from '../providers';
import { isLoopbackUrl, PLACEHOLDER_KEY } from '../providers/endpoint-discovery';
import { apiKeyFor, type CliOptions } from './args';
import { createCliMcp } from './mcp';
import { loadProjectRules, type ProjectRules } from './rules';

declare const __FORGE_VERSION__: string | undefined;

/**
 * Tasks live in the workspace, under .forge/tasks (git-ignored by a .gitignore Forge writes there), not in an
 * XDG state folder: `forge run --continue` in a CI job or a fresh container finds them in the checkout it
 * works on, a workflow can upload them as artifacts next to the diff, and they follow the project, like
 * .forge/memory.jsonl. The price: a task record may hold command output, hence the .gitignore.
 */
export const TASKS_DIR = path.join('.forge', 'tasks');

interface Runtime {
  root: string;
  model: Model;
  tools: Tool[];
  runner: NodeCommandRunner;
  sandbox: CommandSandbox;
  memory?: MemoryPort;
  rules: ProjectRules;
  store: TaskStore;
  makeAgent(approver: Approver, snapshot?: AgentSnapshot): Agent;
  dispose(): Promise<void>;
}

/** The workspace folder, resolved; throws a plain message when it is missing or not a folder. */
export async function resolveRoot(cwd: string): Promise<string> {
  const abs = path.resolve(cwd);
  const st = await fsp.stat(abs).catch(() => undefined);
  if (!st?.isDirectory()) throw new Error(`--cwd ${cwd}: no such folder`);
  return fsp.realpath(abs);
}

export async function openTaskStore(root: string, log: (m: string) => void): Promise<TaskStore> {
  const dir = path.join(root, TASKS_DIR);
  // The records are read back into a task's conversation (--continue) and hold command output: a repository's
  // `.forge -> ~` or `.forge/tasks -> elsewhere` link must lead neither the reads nor the writes out of the workspace.
  const where = await new WorkspaceSandbox(new NodeWorkspaceFs([root]), { trusted: true }).resolve(dir, 'list');
  if (!where.ok && (where.code === 'symlink-escape' || where.code === 'outside-workspace')) {
    throw new Error(
      `${TASKS_DIR} leads outside the workspace (a symbolic link); Forge keeps its task records only inside it. Remove the link or run elsewhere.`,
    );
  }
  await fsp.mkdir(dir, { recursive: true });
  await fsp
    .writeFile(path.join(dir, '.gitignore'), '# Forge task records (may hold command output): not for commits.\n*\n', {
      flag: 'wx',
    })
    .catch(() => undefined);
  return TaskStore.open(dir, { log });
}

interface RuntimePlace {
  /** The user's folder: task store and memory live here. */
  root: string;
  /** Where the task works (tools, commands, rules): the root, or a git worktree of it (--worktree). */
  workspace: string;
  store: TaskStore;
}

/** What the runtime may ask the person at the terminal (nothing without one). */
interface RuntimeHooks {
  ask?: (prompt: string, secret: boolean) => Promise<string | undefined>;
  env?: NodeJS.ProcessEnv;
}

export async function createRuntime(
  opts: CliOptions,
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void },
  place: RuntimePlace,
  hooks: RuntimeHooks = {},
): Promise<Runtime> {
  const { root, workspace, store } = place;
  let apiKey = apiKeyFor(opts.provider);
  if (!apiKey && opts.provider === 'openai-compatible' && isLoopbackUrl(opts.baseUrl)) apiKey = PLACEHOLDER_KEY;
  if (!apiKey)
    throw new Error(
      `no API key: set ${opts.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'} (or FORGE_API_KEY) in the environment`,
    );
  const model = createModel({ provider: opts.provider, model: opts.model, apiKey, baseUrl: opts.baseUrl });
  const price = (usage: Usage, info = model.info): number | undefined => {
    const p = priceFor(info.provider, info.model);
    return p ? costOf(usage, p) : undefined;
  };

  const sandbox = new CommandSandbox({
    settings: () => ({ enabled: opts.sandbox, network: opts.network, allowedHosts: opts.allowedHosts, envAllow: [] }),
    roots: () => [workspace],
    log,
  });
  const containment = await sandbox.ready();
  if (containment.kind === 'none')
    log.warn(`commands run WITHOUT a sandbox: ${containment.reason ?? containment.summary}`);
  else log.debug(`commands run contained: ${containment.summary}`);
  const runner = new NodeCommandRunner({ sandbox });
  const fs = new NodeWorkspaceFs([workspace]);
  const tools = createWorkspaceTools({
    fs,
    runner,
    applier: new DiskEditApplier({ roots: () => [workspace] }),
    sandbox: { trusted: true, commands: { allow: [], deny: [] }, warn: (m) => log.warn(m) },
    home: os.homedir(),
  });

  let memory: MemoryPort | undefined;
  if (opts.memory) {
    try {
      const forge = await openForgeMemory({
        workspaceRoot: root,
        workspaceFs: root === workspace ? fs : new NodeWorkspaceFs([root]),
        reflection: { budgetUsd: 0.05, price: (u) => price(u) },
        log: (m) => log.debug(m),
      });
      memory = opts.reflect ? forge : { recall: (t, b) => forge.recall(t, b), reflect: async () => [] };
    } catch (err) {
      log.warn(`memory is off: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const rules = await loadProjectRules(fs, (m) => log.warn(m));
  const mcp = opts.mcp
    ? await createCliMcp({
        workspace,
        ...(opts.mcpConfig ? { configFile: opts.mcpConfig } : {}),
        allow: opts.mcpAllow,
        env: hooks.env ?? process.env,
        ...(hooks.ask ? { ask: hooks.ask } : {}),
        log,
        ...(typeof __FORGE_VERSION__ === 'string' ? { version: __FORGE_VERSION__ } : {}),
      })
    : undefined;

  const config: Partial<AgentConfig> = {
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(opts.maxIterations ? { maxIterations: opts.maxIterations } : {}),
    ...(opts.maxCostUsd ? { maxCostUsd: opts.maxCostUsd } : {}),
    ...(opts.maxMinutes ? { maxWallTimeMs: opts.maxMinutes * 60_000 } : {}),
    ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}),
    price,
    // --approve, decided in core's Policy exactly as the extension's forge.autoApprove settings are.
    policy: { standing: () => standingFromFlags(opts.approve, () => runner.containment()) },
    ...(rules.text ? { projectRules: rules.text } : {}),
    environment: () =>
      [
        `Workspace folder: ${workspace}${workspace !== root ? " (a git worktree of the user's repository; the user reviews its branch when you finish)" : ''}`,
        `OS: ${os.platform()} ${os.release()}`,
        'Surface: the forge command line, headless. Nobody may be watching: finish with task_completion, or ask_question when you cannot.',
        `Commands: ${runner.containment().summary}`,
      ].join('\n'),
  };
  const memoryPort = memory;
  const makeAgent = (approver: Approver, snapshot?: AgentSnapshot): Agent => {
    const deps: AgentDeps = {
      model,
      tools,
      approver,
      config,
      memory: memoryPort,
      log: (m) => log.debug(m),
      ...(mcp ? { toolSources: [mcp.toolSource] } : {}),
    };
    return snapshot ? Agent.restore(snapshot, deps) : new Agent(deps);
  };
  return {
    root,
    model,
    tools,
    runner,
    sandbox,
    memory,
    rules,
    store,
    makeAgent,
    dispose: async () => {
      await store.flush();
      await Promise.all([sandbox.dispose(), mcp?.dispose()]);
    },
  };
}

export interface TaskMeta {
  title: string;
  createdAt: number;
  status: string;
  /** --worktree: where the task works (kept in the record so --continue goes back there). */
  worktree?: TaskWorktree;
}

/** The worktree a stored record names, if any (records are untrusted input: checked field by field). */
export function worktreeOf(record: TaskRecord | undefined): TaskWorktree | undefined {
  const w = (record as { worktree?: Partial<TaskWorktree> } | undefined)?.worktree;
  return w &&
    typeof w.path === 'string' &&
    typeof w.branch === 'string' &&
    typeof w.base === 'string' &&
    typeof w.repo === 'string' &&
    w.branch.startsWith('forge/')
    ? { path: w.path, branch: w.branch, base: w.base, repo: w.repo }
    : undefined;
}

export function recordOf(agent: Agent, meta: TaskMeta): TaskRecord {
  const snapshot = agent.dump();
  return {
    ...(meta.worktree ? { worktree: meta.worktree } : {}),
    id: agent.taskId,
    title: meta.title,
    createdAt: meta.createdAt,
    updatedAt: Date.now(),
    mode: snapshot.mode,
    status: meta.status,
    iterations: snapshot.iterations,
    ...(snapshot.costUsd !== undefined ? { costUsd: snapshot.costUsd } : {}),
    snapshot,
  };
}
