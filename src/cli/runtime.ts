// Wires the core for one headless run through the builder the extension uses too (src/node/surface/): the model
// from flags/env (context window, tool-call format with the XML fallback, fallback model), the Node workspace
// (fs, edits, commands in the OS sandbox), memory, project rules with nested AGENTS.md, `.forge/commands`, the
// mode's context, delegate_task, the task store. Nothing here imports 'vscode' (a test checks the built bundle).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SlashCommandRegistry } from '../core/commands/slash';
import type { Agent } from '../core/loop/agent';
import type { AgentConfig } from '../core/loop/config';
import { openForgeMemory } from '../core/memory';
import type { MemoryPort } from '../core/memory/port';
import type { Model, ModelInfo, Usage } from '../core/model/types';
import { findMode, MODE_NAMES } from '../core/modes';
import { createModeContextGatherer } from '../core/modes/context';
import { TestRunTracker } from '../core/modes/test-runs';
import type { Approver } from '../core/safety/approval';
import { WorkspaceSandbox } from '../core/safety/paths';
import type { AgentSnapshot } from '../core/tasks/snapshot';
import { TaskStore, type TaskRecord } from '../core/tasks/task-store';
import { createWorkspaceTools } from '../core/tools/builtin';
import type { Tool } from '../core/tools/types';
import {
  NodeCommandRunner,
  DiskEditApplier,
  NodeMemoryFileIO,
  NodeTasksIO,
  NodeWorkspaceFs,
  workerRegexScan,
} from '../node';
import { CommandSandbox } from '../node/sandbox/command-sandbox';
import { buildAgent, createSlashRegistry, expandInput, type ExpandedInput } from '../node/surface/agents';
import {
  buildEndpointModel,
  buildFallbackModel,
  priceOf,
  type EndpointModelDeps,
  type EndpointProvider,
} from '../node/surface/model';
import { WorkspaceRules } from '../node/surface/rules';
import { ModeModels, modeModelSpecs } from '../node/surface/mode-models';
import { TeamFiles } from '../node/surface/team-files';
import { surfaceConfig, type SurfaceSettings } from '../node/surface/settings';
import { standingFromFlags } from './approvals';
import type { TaskWorktree } from '../node/worktrees';
import { apiKeyFor, type CliOptions } from './args';
import { CLI_CONTROLS, CLI_MODEL_CONTROLS, CLI_SANDBOX_CONTROLS, cliSurfaceSettings } from './controls';
import { withSavedRules } from '../core/safety/saved-rules';
import { createCliHooks } from './hooks';
import { readCliPermissionRules } from './permissions';
import { cliWebTools } from './web';
import { createCliMcp } from './mcp';
import { errorText } from '../core/error-text';

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
  rules: WorkspaceRules;
  slash: SlashCommandRegistry;
  store: TaskStore;
  /** The run config every Agent of this runtime gets (exposed for the parity test). */
  config: Partial<AgentConfig>;
  makeAgent(approver: Approver, snapshot?: AgentSnapshot): Agent;
  /** What the user typed, with `/command args` expanded from .forge/commands (as the panel does). */
  expand(text: string): Promise<ExpandedInput>;
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
  return TaskStore.open(dir, { io: new NodeTasksIO(), log });
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
  /** The model clients' fetch (tests). */
  fetch?: typeof fetch;
}

export async function createRuntime(
  opts: CliOptions,
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void },
  place: RuntimePlace,
  hooks: RuntimeHooks = {},
): Promise<Runtime> {
  const { root, workspace, store } = place;
  const env = hooks.env ?? process.env;
  const settings = cliSurfaceSettings(opts);
  const modelDeps: EndpointModelDeps = {
    apiKey: (provider) => apiKeyFor(provider, env),
    controls: CLI_MODEL_CONTROLS,
    ...(hooks.fetch ? { fetch: hooks.fetch } : {}),
    log: (m) => log.info(m),
  };
  const endpoint = settings as SurfaceSettings & { provider: EndpointProvider };
  const built = await buildEndpointModel(endpoint, modelDeps);
  if (!built.model) throw new Error(built.problem ?? 'no model');
  const model = built.model;
  if (built.warning) log.warn(built.warning);
  log.debug(
    `model ${model.info.provider} ${model.info.model}: context window ${built.contextWindow} tokens (${built.contextWindowSource}); tool calls: ${built.toolFormat} (${built.toolFormatReason})`,
  );
  const fallback = await buildFallbackModel(settings, modelDeps);
  if (fallback.problem) throw new Error(`--fallback-model ${settings.fallbackModel}: ${fallback.problem}`);
  const priced = {
    get info() {
      return model.info;
    },
    fallback: fallback.model,
    price: (usage: Usage, info: ModelInfo = model.info) => priceOf(usage, info),
  };

  const sandbox = new CommandSandbox({
    settings: () => ({ enabled: opts.sandbox, network: opts.network, allowedHosts: opts.allowedHosts, envAllow: [] }),
    roots: () => [workspace],
    log,
    controls: CLI_SANDBOX_CONTROLS,
  });
  const containment = await sandbox.ready();
  if (containment.kind === 'none')
    log.warn(`commands run WITHOUT a sandbox: ${containment.reason ?? containment.summary}`);
  else log.debug(`commands run contained: ${containment.summary}`);
  const runner = new NodeCommandRunner({ sandbox });
  const fs = new NodeWorkspaceFs([workspace]);
  const toolSandbox = { trusted: true, commands: { allow: [], deny: [] }, warn: (m: string) => log.warn(m) };
  const tools = createWorkspaceTools({
    fs,
    runner,
    applier: new DiskEditApplier({ roots: () => [workspace] }),
    sandbox: toolSandbox,
    home: os.homedir(),
    regexScan: workerRegexScan,
  });

  let memory: MemoryPort | undefined;
  if (opts.memory) {
    try {
      const forge = await openForgeMemory({
        workspaceRoot: root,
        workspaceFs: root === workspace ? fs : new NodeWorkspaceFs([root]),
        io: new NodeMemoryFileIO(),
        reflection: { budgetUsd: 0.05, price: (u) => priced.price(u) },
        log: (m) => log.debug(m),
      });
      memory = opts.reflect ? forge : { recall: (t, b) => forge.recall(t, b), reflect: async () => [] };
    } catch (err) {
      log.warn(`memory is off: ${errorText(err)}`);
    }
  }
  const rules = new WorkspaceRules(
    fs,
    (m) => log.warn(m),
    (_taskId, r) =>
      log.info(
        `rules: now following ${r
          .sources()
          .filter((s) => s.kind === 'nested')
          .map((s) => s.display)
          .join(', ')}`,
      ),
  );
  await rules.load();
  // The team's skills and custom agents: the same files, places and confinement as in the extension.
  const team = new TeamFiles(fs, { homeDir: os.homedir(), reader: rules.reader, warn: (m) => log.warn(m) });
  await team.load();
  if (opts.mode && !findMode(opts.mode, team.agents)) {
    const names = [...MODE_NAMES, ...team.agents.map((a) => a.name)].join(', ');
    throw new Error(`--mode: unknown mode "${opts.mode}" (${names})`);
  }
  const modeModels = new ModeModels();
  await modeModels.prepare(
    modeModelSpecs({}, team.agents, endpoint.provider),
    (spec) => buildFallbackModel({ ...settings, fallbackModel: spec }, modelDeps),
    (m) => log.warn(m),
  );
  const mcp = opts.mcp
    ? await createCliMcp({
        workspace,
        ...(opts.mcpConfig ? { configFile: opts.mcpConfig } : {}),
        allow: opts.mcpAllow,
        env,
        ...(hooks.ask ? { ask: hooks.ask } : {}),
        log,
        ...(typeof __FORGE_VERSION__ === 'string' ? { version: __FORGE_VERSION__ } : {}),
      })
    : undefined;
  const savedRules = await readCliPermissionRules(workspace, (m) => log.warn(m));
  const guardedTools = [...tools, ...cliWebTools(env, (m) => log.warn(m))].map((t) =>
    withSavedRules(t, () => savedRules),
  );
  const teamHooks = await createCliHooks({
    workspace,
    sandbox,
    allowWorkspace: opts.allowWorkspaceHooks,
    userFiles: opts.hooksFiles,
    ...(hooks.ask ? { ask: hooks.ask } : {}),
    log,
  });
  if (mcp) teamHooks.useMcp(() => mcp);
  const slash = createSlashRegistry(fs, (m) => log.warn(m));
  const testRuns = new TestRunTracker();

  const config: Partial<AgentConfig> = {
    ...surfaceConfig(settings, priced, CLI_CONTROLS),
    // --approve, decided in core's Policy exactly as the extension's forge.autoApprove settings are.
    policy: { standing: () => standingFromFlags(opts.approve, () => runner.containment()) },
    modeContext: createModeContextGatherer({ fs, sandbox: toolSandbox, runner, lastTestRun: () => testRuns.last() }),
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
    const agent = buildAgent(
      {
        model,
        tools: teamHooks.wrapTools(guardedTools, model),
        approver,
        config: { ...config, hooks: teamHooks.forModel(model).port },
        memory: memoryPort,
        log: (m) => log.debug(m),
        ...(mcp ? { toolSources: teamHooks.wrapSources([mcp.toolSource], model) } : {}),
        modelFor: (mode) => modeModels.modelFor(mode),
      },
      { rules, team },
      snapshot,
    );
    agent.on((e) => testRuns.observe(e));
    agent.on(teamHooks.onAgentEvent);
    return agent;
  };
  return {
    root,
    model,
    tools,
    runner,
    sandbox,
    memory,
    rules,
    slash,
    store,
    config,
    makeAgent,
    expand: (text) => expandInput(slash, text),
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
  /** The iteration limit the task runs with (--continue keeps it). */
  maxIterations?: number;
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
    ...(meta.maxIterations ? { maxIterations: meta.maxIterations } : {}),
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
