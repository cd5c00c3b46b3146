// `forge` command line: flags and environment -> CliOptions, or a usage error (exit 64). No I/O here.
// API keys come from the environment only (never a flag: flags show in `ps` and shell history).
import { isModeName, MODE_NAMES, type ModeName } from '../core/modes';
import { parseApprovalPolicy, type ApprovalPolicy } from './approvals';

type ProviderName = 'openai' | 'anthropic' | 'openai-compatible';
type NetworkSetting = 'off' | 'allowlist' | 'on';

export interface CliOptions {
  command: 'run' | 'tasks' | 'help' | 'version';
  task?: string;
  cwd: string;
  provider: ProviderName;
  model: string;
  baseUrl?: string;
  mode?: ModeName;
  maxIterations?: number;
  /** Budgets per run (exit 4 when reached). */
  maxCostUsd?: number;
  maxMinutes?: number;
  maxTokens?: number;
  /** Read the task text from this file ('-' = stdin). */
  promptFile?: string;
  /** --image (repeatable): image files sent with the task to a model that takes images. */
  images: string[];
  approve: ApprovalPolicy;
  network: NetworkSetting;
  allowedHosts: string[];
  sandbox: boolean;
  json: boolean;
  continueLast: boolean;
  taskId?: string;
  memory: boolean;
  reflect: boolean;
  /** Work in a new git worktree on a forge/<task> branch instead of the folder itself. */
  worktree: boolean;
  /** Write the final run report (JSON) here. */
  reportFile?: string;
  verbose: boolean;
  color?: boolean;
  /** --mcp: workspace MCP servers (.vscode/mcp.json) allowed to start; 'all' allows every one. */
  mcpAllow: string[];
  /** --mcp-config: the user's own MCP servers file. */
  mcpConfig?: string;
  /** --no-mcp: no MCP server at all. */
  mcp: boolean;
  /** --allow-workspace-hooks: run the workspace's hooks (.claude/settings.json...) without asking. */
  allowWorkspaceHooks: boolean;
  /** --hooks-file: the user's own hook files (Claude Code settings format). */
  hooksFiles: string[];
  /** auto: native tool calls until the server refuses them, then Forge's XML format. */
  toolCallFormat: 'auto' | 'native' | 'xml';
  /** Tokens the model's context holds (overrides what the server says); compaction works from it. */
  contextWindow?: number;
  /** "<provider>:<model>" used for the rest of a run once the model keeps failing with outages. */
  fallbackModel?: string;
  streamIdleTimeoutSeconds?: number;
  /** json: the task and each next message come as JSON Lines on stdin ({"type":"user","text":"..."}). */
  inputFormat: 'text' | 'json';
  /** A JSON Schema file the final result must satisfy (exit 7 when it does not). */
  outputSchema?: string;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: 'gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
  'openai-compatible': '',
};

export const USAGE = `Usage: forge run [options] "task"        run a task in a folder
       forge run --continue [options] ["message"]   resume the latest task (or --task <id>)
       forge tasks [--cwd dir]             list stored tasks

Model (flags win over the environment):
  --provider <openai|anthropic|openai-compatible>   env FORGE_PROVIDER (default: from the API key found)
  --model <name>                                    env FORGE_MODEL
  --base-url <url>                                  env FORGE_BASE_URL (OpenAI-compatible servers, proxies)
  --tool-call-format <auto|native|xml>              env FORGE_TOOL_CALL_FORMAT (default auto: native tool calls,
                                                    Forge's XML format once the server refuses tools)
  --context-window <tokens>                         env FORGE_CONTEXT_WINDOW (default: what the server says, or
                                                    the model's known limit); compaction starts at 90% of it
  --fallback-model <provider:model>                 env FORGE_FALLBACK_MODEL: used once the model keeps failing
                                                    with outages (e.g. openai-compatible:llama3.1:8b@http://...)
  --stream-idle-timeout <seconds>                   a silent model stream is retried after this (default 90)
  API keys: OPENAI_API_KEY, ANTHROPIC_API_KEY (or FORGE_API_KEY), from the environment only.

Task:
  --cwd <dir>            the workspace folder (default: the current folder)
  --mode <${MODE_NAMES.join('|')}|custom agent>
  --max-iterations <n>
  --max-cost <usd>  --max-minutes <n>  --max-tokens <n>   budgets per run (exit 4 when reached)
  --prompt-file <file>   read the task text from a file (- for stdin)
  --image <file>         send an image (png, jpg, gif, webp; up to 3.7 MB) with the task; repeatable, at most 8.
                         The model must take images (Claude, GPT-4o/4.1/5, vision models by name)
  --continue             resume the most recent task of this folder (a task stopped at its iteration limit
                         gets as many iterations again as it ran with, or --max-iterations)
  --task <id>            resume this task
  --worktree             work in a new git worktree on a forge/<task> branch (your files stay untouched;
                         several runs at once do not collide); the branch is committed at the end
  --no-memory            no recall from / learning into .forge/memory.jsonl
  --no-reflect           recall memories but do not ask the model for new learnings

Approvals (never a silent allow-all):
  --approve <list>       approve without asking: writes, commands-sandboxed, commands, network
  --yes-contained        same as --approve writes,commands-sandboxed
  --network <off|allowlist|on>   network inside the command sandbox (default off)
  --allow-host <pattern> a host for --network allowlist (repeatable)
  --no-sandbox           run commands without the OS sandbox (they then need --approve commands or a y)
  In a terminal Forge asks for everything not approved (y/n/a=always for this task/q); without a terminal
  and without a policy, anything that needs approval is refused.

MCP servers (the workspace's .vscode/mcp.json, as in the extension):
  --mcp <names|all>      let these workspace servers start (they run outside the sandbox); in a terminal
                         Forge asks instead, without one they stay off. Their tools need --approve network or a y
  --mcp-config <file>    your own servers file (same format); its servers start without a question
  --no-mcp               no MCP servers

Hooks (Claude Code's format: ~/.claude/settings.json, the workspace's .claude/settings.json, .forge/hooks.json):
  --allow-workspace-hooks  run the workspace's hooks (contained) without asking; in a terminal Forge asks
  --hooks-file <file>    your own hooks file (repeatable); its hooks run like ~/.claude/settings.json's
  \${input:id} values: FORGE_MCP_INPUT_<ID> in the environment, or asked (hidden) in a terminal.

Output:
  --json                 JSON Lines of the loop's events on stdout (people's progress stays on stderr); the
                         last line is {"type":"cli_exit",...} with the run report
  --input-format <text|json>   json: read the task and each next message as JSON Lines on stdin
                         ({"type":"user","text":"..."}); the run continues with each line (implies --json)
  --output-schema <file> the final result must be JSON valid against this JSON Schema (exit 7 when not)
  --report <file>        write the run report (JSON) there
  --verbose              show thinking and tool output
  --no-color

Exit codes: 0 done, 1 error, 2 asked a question / needs input, 3 stopped (signal or q), 4 iteration or
budget limit, 5 breaker or guardrail, 6 stagnation, 7 result not valid against --output-schema, 64 usage error.`;

function parseProvider(v: string, from: string): ProviderName {
  if (v === 'openai' || v === 'anthropic' || v === 'openai-compatible') return v;
  throw new UsageError(`${from}: unknown provider "${v}" (openai, anthropic or openai-compatible)`);
}

export function parseArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): CliOptions {
  const rest: string[] = [];
  const flags = new Map<string, string[]>();
  const bools = new Set<string>();
  const VALUED = new Set([
    'provider',
    'model',
    'base-url',
    'cwd',
    'mode',
    'max-iterations',
    'approve',
    'network',
    'allow-host',
    'task',
    'report',
    'max-cost',
    'max-minutes',
    'max-tokens',
    'prompt-file',
    'image',
    'mcp',
    'mcp-config',
    'hooks-file',
    'tool-call-format',
    'context-window',
    'fallback-model',
    'stream-idle-timeout',
    'input-format',
    'output-schema',
  ]);
  const BOOL = new Set([
    'worktree',
    'json',
    'continue',
    'no-memory',
    'no-reflect',
    'yes-contained',
    'no-sandbox',
    'verbose',
    'no-color',
    'color',
    'help',
    'version',
    'no-mcp',
    'allow-workspace-hooks',
  ]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (a === '-h') {
      bools.add('help');
      continue;
    }
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (VALUED.has(name)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, [...(flags.get(name) ?? []), value]);
    } else if (BOOL.has(name) && eq < 0) bools.add(name);
    else throw new UsageError(`unknown option ${a.slice(0, eq < 0 ? undefined : eq)}`);
  }
  const one = (name: string) => flags.get(name)?.at(-1);
  const [verb, ...words] = rest;
  const command =
    bools.has('help') || verb === 'help'
      ? 'help'
      : bools.has('version')
        ? 'version'
        : verb === 'tasks'
          ? 'tasks'
          : verb === 'run'
            ? 'run'
            : undefined;
  if (!command)
    throw new UsageError(
      verb ? `unknown command "${verb}" (try: forge run "task")` : 'no command given (try: forge run "task")',
    );

  const providerRaw = one('provider') ?? env.FORGE_PROVIDER;
  const provider = providerRaw
    ? parseProvider(providerRaw, one('provider') ? '--provider' : 'FORGE_PROVIDER')
    : env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY
      ? 'anthropic'
      : (one('base-url') ?? env.FORGE_BASE_URL)
        ? 'openai-compatible'
        : 'openai';
  const model = one('model') ?? env.FORGE_MODEL ?? DEFAULT_MODELS[provider];
  const baseUrl = one('base-url') ?? env.FORGE_BASE_URL ?? undefined;

  const modeRaw = one('mode');
  // A custom agent's name is checked once its files are read (runtime.ts).
  if (modeRaw !== undefined && !isModeName(modeRaw) && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(modeRaw))
    throw new UsageError(`--mode: unknown mode "${modeRaw}" (${MODE_NAMES.join(', ')}, or a custom agent's name)`);
  const maxRaw = one('max-iterations');
  const maxIterations = maxRaw === undefined ? undefined : Number(maxRaw);
  if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1))
    throw new UsageError('--max-iterations needs a whole number >= 1');
  const positive = (name: string): number | undefined => {
    const raw = one(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} needs a number > 0`);
    return n;
  };
  const maxCostUsd = positive('max-cost');
  const maxMinutes = positive('max-minutes');
  const maxTokens = positive('max-tokens');
  const promptFile = one('prompt-file');
  const images = flags.get('image') ?? [];
  if (images.length > 8) throw new UsageError(`--image: at most 8 images per message (got ${images.length})`);
  const toolCallFormat = one('tool-call-format') ?? env.FORGE_TOOL_CALL_FORMAT ?? 'auto';
  if (toolCallFormat !== 'auto' && toolCallFormat !== 'native' && toolCallFormat !== 'xml')
    throw new UsageError(`--tool-call-format: "${toolCallFormat}" is not auto, native or xml`);
  const windowRaw = one('context-window') ?? env.FORGE_CONTEXT_WINDOW;
  const contextWindow = windowRaw === undefined || windowRaw === '' ? undefined : Number(windowRaw);
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || contextWindow < 1024))
    throw new UsageError('--context-window needs a whole number of tokens >= 1024');
  const fallbackModel = one('fallback-model') ?? (env.FORGE_FALLBACK_MODEL || undefined);
  if (fallbackModel !== undefined && !/^(openai|anthropic|openai-compatible):\S/.test(fallbackModel))
    throw new UsageError(
      `--fallback-model: "${fallbackModel}" is not <provider>:<model> (openai, anthropic or openai-compatible)`,
    );
  const streamIdleTimeoutSeconds = positive('stream-idle-timeout');
  const inputFormat = one('input-format') ?? 'text';
  if (inputFormat !== 'text' && inputFormat !== 'json')
    throw new UsageError(`--input-format: "${inputFormat}" is not text or json`);
  const outputSchema = one('output-schema');
  const network = one('network') ?? 'off';
  if (network !== 'off' && network !== 'allowlist' && network !== 'on')
    throw new UsageError(`--network: "${network}" is not off, allowlist or on`);

  let approve: ApprovalPolicy;
  try {
    approve = parseApprovalPolicy([
      ...(flags.get('approve') ?? []),
      ...(bools.has('yes-contained') ? ['writes,commands-sandboxed'] : []),
    ]);
  } catch (err) {
    throw new UsageError(`--approve: ${(err as Error).message}`);
  }
  const continueLast = bools.has('continue');
  const taskId = one('task');
  const task = words.join(' ').trim() || undefined;
  if (command === 'run') {
    if (task && promptFile) throw new UsageError('give the task as text or with --prompt-file, not both');
    if (inputFormat === 'json' && (task || promptFile))
      throw new UsageError('--input-format json reads the task from stdin: give no task text or --prompt-file');
    if (!task && !promptFile && !continueLast && !taskId && inputFormat !== 'json')
      throw new UsageError('forge run needs a task, e.g. forge run "fix the failing test" (or --continue)');
    if (!model) throw new UsageError(`no model: pass --model or set FORGE_MODEL (provider ${provider})`);
    if (provider === 'openai-compatible' && !baseUrl)
      throw new UsageError('the openai-compatible provider needs --base-url or FORGE_BASE_URL');
    if (continueLast && taskId) throw new UsageError('--continue and --task are exclusive');
  }
  return {
    command,
    task,
    cwd: one('cwd') ?? cwd,
    provider,
    model,
    baseUrl,
    mode: modeRaw as ModeName | undefined,
    maxIterations,
    maxCostUsd,
    maxMinutes,
    maxTokens,
    promptFile,
    images,
    approve,
    network,
    allowedHosts: flags.get('allow-host') ?? [],
    sandbox: !bools.has('no-sandbox'),
    json: bools.has('json') || inputFormat === 'json',
    continueLast,
    taskId,
    memory: !bools.has('no-memory'),
    reflect: !bools.has('no-reflect'),
    worktree: bools.has('worktree'),
    reportFile: one('report'),
    verbose: bools.has('verbose'),
    color: bools.has('no-color') ? false : bools.has('color') ? true : undefined,
    mcpAllow: (flags.get('mcp') ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean),
    mcpConfig: one('mcp-config'),
    mcp: !bools.has('no-mcp'),
    allowWorkspaceHooks: bools.has('allow-workspace-hooks'),
    hooksFiles: flags.get('hooks-file') ?? [],
    toolCallFormat,
    contextWindow,
    fallbackModel,
    streamIdleTimeoutSeconds,
    inputFormat,
    outputSchema,
  };
}

/** The API key for a provider, from the environment only. Never logged; never passed to commands (scrubEnv). */
export function apiKeyFor(provider: ProviderName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.FORGE_API_KEY) return env.FORGE_API_KEY;
  return provider === 'anthropic' ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY;
}
