// MCP servers for the `forge` command line: the workspace's `.vscode/mcp.json` (the same file the extension reads)
// and the user's own --mcp-config file. A workspace server runs code the repository chose, outside the command
// sandbox, so it starts only when --mcp names it (or all), or when the person at the terminal says yes; a CI run
// with neither never starts it. ${input:id} values come from FORGE_MCP_INPUT_<ID> or a hidden question in a terminal.
import * as os from 'node:os';
import * as path from 'node:path';
import { literalSecrets, resolveSpec, type McpServerSpec } from '../core/mcp/config';
import { describePermission } from '../core/mcp/permission';
import {
  MCP_JSON,
  readMcpConfigFile,
  readWorkspaceMcpConfig,
  withEnvFile,
  type EnvFileSnapshot,
} from '../node/mcp/config-files';
import { permissionOf } from '../node/mcp/consent';
import { McpManager } from '../node/mcp/manager';
import { scrubEnv } from '../node/sandbox/env';
import { plural } from '../core/plural';

interface CliMcpOptions {
  workspace: string;
  /** --mcp-config: the user's own servers (they start without a question). */
  configFile?: string;
  /** --mcp: workspace servers allowed to start ('all' for every one). */
  allow: readonly string[];
  env: NodeJS.ProcessEnv;
  /** A question at the terminal (undefined without one). `secret` hides the answer. */
  ask?: (prompt: string, secret: boolean) => Promise<string | undefined>;
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void };
  version?: string;
}

/** The env variable a ${input:id} value is read from: FORGE_MCP_INPUT_ + the id in upper case, other characters `_`. */
export function inputEnvName(id: string): string {
  return `FORGE_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The servers' manager, or undefined when no server is configured. Servers start on the first run that lists tools. */
export async function createCliMcp(o: CliMcpOptions): Promise<McpManager | undefined> {
  const userLabel = o.configFile ? path.basename(o.configFile) : '';
  const [fromWorkspace, fromUser] = await Promise.all([
    readWorkspaceMcpConfig(o.workspace),
    o.configFile ? readMcpConfigFile(path.resolve(o.configFile), userLabel, o.workspace) : undefined,
  ]);
  if (o.configFile && !fromUser) throw new Error(`--mcp-config ${o.configFile}: no such file`);
  // The user's file wins for a name in both; its servers are marked as the user's own.
  const mine = (fromUser?.servers ?? []).map((s): McpServerSpec => ({ ...s, source: `--mcp-config ${userLabel}` }));
  const specs = [...mine, ...(fromWorkspace?.servers ?? []).filter((s) => !mine.some((m) => m.name === s.name))];
  const inputs = new Map([...(fromWorkspace?.inputs ?? []), ...(fromUser?.inputs ?? [])].map((i) => [i.id, i]));
  for (const p of [...(fromWorkspace?.problems ?? []), ...(fromUser?.problems ?? [])]) o.log.warn(`MCP: ${p}`);
  for (const spec of specs) {
    const names = literalSecrets(spec);
    if (names.length)
      o.log.warn(
        `MCP: ${spec.source}: server "${spec.name}" has a literal secret in ${names.join(', ')}; use \${input:id} or \${env:NAME} instead`,
      );
  }
  if (!specs.length) return undefined;
  const unknown = o.allow.filter((n) => n !== 'all' && !specs.some((s) => s.name === n));
  if (unknown.length)
    o.log.warn(
      `--mcp ${unknown.join(', ')}: no such server in ${MCP_JSON}${o.configFile ? ` or ${o.configFile}` : ''}`,
    );

  // A yes at the terminal is for the configuration it showed (and its envFile's content): a restart after either
  // changed (a command of the task rewrote the envFile) asks again.
  const vars = { env: (name: string) => o.env[name], workspaceFolder: o.workspace, userHome: os.homedir() };
  const decided = new Map<string, Promise<boolean>>();
  const mayStart = async (spec: McpServerSpec): Promise<{ ok: boolean; envFile?: EnvFileSnapshot }> => {
    const { key, envFile } = await permissionOf(spec, o.workspace, vars);
    if (spec.source.startsWith('--mcp-config') || o.allow.includes('all') || o.allow.includes(spec.name))
      return { ok: true, envFile };
    let answer = decided.get(key);
    if (!answer) {
      const what = `${describePermission(spec)}${spec.type === 'stdio' ? ' outside the sandbox' : ''}`;
      answer = o.ask
        ? o
            .ask(`Start the MCP server "${spec.name}" from ${spec.source}? It ${what}. [y/N] `, false)
            .then((a) => /^y(es)?$/i.test((a ?? '').trim()))
        : Promise.resolve(false);
      decided.set(key, answer);
    }
    return { ok: await answer, envFile };
  };
  const input = async (id: string, server: string): Promise<string | undefined> => {
    const fromEnv = o.env[inputEnvName(id)];
    if (fromEnv !== undefined) return fromEnv;
    const def = inputs.get(id);
    if (o.ask)
      return o.ask(
        `${def?.description ?? `Value for \${input:${id}}`} (MCP server "${server}"): `,
        def?.password ?? true,
      );
    throw new Error(`\${input:${id}} has no value: set ${inputEnvName(id)} in the environment`);
  };

  const manager = new McpManager({
    log: { debug: o.log.debug, info: o.log.debug, warn: o.log.warn },
    resolve: async (spec) => {
      const start = await mayStart(spec);
      if (!start.ok)
        throw new Error(
          `not started: it comes from ${spec.source}; run with --mcp ${spec.name} (or --mcp all) to allow it`,
        );
      const resolved = await resolveSpec(spec, { ...vars, input: (id) => input(id, spec.name) });
      return withEnvFile(resolved, o.workspace, start.envFile);
    },
    // Servers get the scrubbed environment commands get (no API keys), plus what their own config names.
    baseEnv: () => scrubEnv(o.env, []).env,
    cwd: o.workspace,
    callTimeoutMs: () => 60_000,
    // MCP tools are 'network' calls: --approve network, or a question at the terminal.
    autoApproved: () => false,
    ...(o.version ? { clientVersion: o.version } : {}),
  });
  await manager.configure(specs);
  o.log.debug(
    `MCP: ${plural(specs.length, 'server')} configured (${specs.map((s) => s.name).join(', ')}); they start on first use.`,
  );
  return manager;
}
