// MCP server configuration in VS Code's `.vscode/mcp.json` shape (also used by the forge.mcp.servers setting):
// { "servers": { name: { type: "stdio", command, args, env, envFile, cwd } | { type: "http", url, headers } },
//   "inputs": [{ id, type: "promptString", description, password }] }. Values may use ${input:id} (asked once,
// kept in SecretStorage by the host), ${env:NAME}, ${workspaceFolder} and ${userHome}. Pure: no I/O here.

export interface McpInput {
  id: string;
  description?: string;
  password?: boolean;
  default?: string;
}

export type McpServerSpec = {
  name: string;
  /** Where it was configured (for messages): ".vscode/mcp.json" or "settings". */
  source: string;
  disabled?: boolean;
} & (
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; envFile?: string; cwd?: string }
  | { type: 'http'; url: string; headers: Record<string, string> }
);

export interface ParsedMcpConfig {
  servers: McpServerSpec[];
  inputs: McpInput[];
  /** Entries that were skipped, with why (shown in the log). */
  problems: string[];
}

/** Removes // and block comments and trailing commas outside strings (mcp.json is JSON with comments). */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(v)) return out;
  for (const [k, val] of Object.entries(v))
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
  return out;
}

/** Parses an mcp.json object (or the setting's value). Unknown server types are reported, not fatal. */
export function parseMcpConfig(value: unknown, source: string): ParsedMcpConfig {
  const result: ParsedMcpConfig = { servers: [], inputs: [], problems: [] };
  if (!isRecord(value)) return result;
  // VS Code's format uses "servers"; Claude / Cursor files use "mcpServers".
  const servers = isRecord(value.servers) ? value.servers : isRecord(value.mcpServers) ? value.mcpServers : {};
  for (const [name, raw] of Object.entries(servers)) {
    if (!isRecord(raw)) {
      result.problems.push(`${source}: server "${name}" is not an object`);
      continue;
    }
    const disabled = raw.disabled === true || raw.enabled === false;
    const type = typeof raw.type === 'string' ? raw.type : typeof raw.url === 'string' ? 'http' : 'stdio';
    if (type === 'stdio') {
      if (typeof raw.command !== 'string' || !raw.command.trim()) {
        result.problems.push(`${source}: server "${name}" has no command`);
        continue;
      }
      const args = Array.isArray(raw.args)
        ? raw.args.filter((a): a is string | number => typeof a === 'string' || typeof a === 'number').map(String)
        : [];
      result.servers.push({
        name,
        source,
        type: 'stdio',
        command: raw.command,
        args,
        env: stringMap(raw.env),
        ...(typeof raw.envFile === 'string' ? { envFile: raw.envFile } : {}),
        ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
        ...(disabled ? { disabled } : {}),
      });
    } else if (type === 'http' || type === 'streamableHttp' || type === 'streamable-http') {
      if (typeof raw.url !== 'string') {
        result.problems.push(`${source}: server "${name}" has no url`);
        continue;
      }
      result.servers.push({
        name,
        source,
        type: 'http',
        url: raw.url,
        headers: stringMap(raw.headers),
        ...(disabled ? { disabled } : {}),
      });
    } else {
      result.problems.push(
        `${source}: server "${name}" has type "${type}"; Forge connects to "stdio" and "http" (Streamable HTTP) servers`,
      );
    }
  }
  if (Array.isArray(value.inputs)) {
    for (const raw of value.inputs) {
      if (!isRecord(raw) || typeof raw.id !== 'string') continue;
      result.inputs.push({
        id: raw.id,
        ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
        ...(raw.password === true ? { password: true } : {}),
        ...(typeof raw.default === 'string' ? { default: raw.default } : {}),
      });
    }
  }
  return result;
}

/** Parses `.env` text: NAME=value lines, # comments, optional quotes, optional `export `. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    let v = m[2]!;
    if (
      (v.startsWith('"') && v.endsWith('"') && v.length >= 2) ||
      (v.startsWith("'") && v.endsWith("'") && v.length >= 2)
    )
      v = v.slice(1, -1);
    else v = v.replace(/\s+#.*$/, '');
    out[m[1]!] = v;
  }
  return out;
}

export interface VariableContext {
  env: (name: string) => string | undefined;
  workspaceFolder?: string;
  userHome?: string;
  /** The value of ${input:id} (asked once, then remembered by the host). */
  input: (id: string) => Promise<string | undefined>;
}

const VARIABLE = /\$\{(input|env):([^}]+)\}|\$\{(workspaceFolder|userHome|pathSeparator|\/)\}/g;

/** The ${input:...} ids a server's config uses (so the host can ask for them before starting it). */
export function inputIdsOf(spec: McpServerSpec): string[] {
  const ids = new Set<string>();
  const scan = (s: string) => {
    for (const m of s.matchAll(VARIABLE)) if (m[1] === 'input') ids.add(m[2]!.trim());
  };
  for (const s of specStrings(spec)) scan(s);
  return [...ids];
}

function specStrings(spec: McpServerSpec): string[] {
  return spec.type === 'stdio'
    ? [spec.command, ...spec.args, ...Object.values(spec.env), spec.envFile ?? '', spec.cwd ?? '']
    : [spec.url, ...Object.values(spec.headers)];
}

export async function resolveString(text: string, ctx: VariableContext): Promise<string> {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(VARIABLE)) {
    out += text.slice(last, m.index);
    last = m.index! + m[0].length;
    if (m[1] === 'input') {
      const v = await ctx.input(m[2]!.trim());
      if (v === undefined) throw new Error(`no value for \${input:${m[2]}}`);
      out += v;
    } else if (m[1] === 'env') out += ctx.env(m[2]!.trim()) ?? '';
    else if (m[3] === 'workspaceFolder') out += ctx.workspaceFolder ?? '';
    else if (m[3] === 'userHome') out += ctx.userHome ?? '';
    else out += m[3] === 'pathSeparator' || m[3] === '/' ? '/' : '';
  }
  return out + text.slice(last);
}

async function resolveMap(map: Record<string, string>, ctx: VariableContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = await resolveString(v, ctx);
  return out;
}

/** The spec with every variable replaced (rejects when an input has no value: the user cancelled). */
export async function resolveSpec(spec: McpServerSpec, ctx: VariableContext): Promise<McpServerSpec> {
  if (spec.type === 'http')
    return { ...spec, url: await resolveString(spec.url, ctx), headers: await resolveMap(spec.headers, ctx) };
  const args: string[] = [];
  for (const a of spec.args) args.push(await resolveString(a, ctx));
  return {
    ...spec,
    command: await resolveString(spec.command, ctx),
    args,
    env: await resolveMap(spec.env, ctx),
    ...(spec.envFile ? { envFile: await resolveString(spec.envFile, ctx) } : {}),
    ...(spec.cwd ? { cwd: await resolveString(spec.cwd, ctx) } : {}),
  };
}

/** A short description of where a server runs, without secrets (no env values, no headers, no URL query). */
export function describeOrigin(spec: McpServerSpec): string {
  if (spec.type === 'http') {
    try {
      const u = new URL(spec.url);
      return `http: ${u.protocol}//${u.host}${u.pathname}`;
    } catch {
      return 'http: (invalid url)';
    }
  }
  const args = spec.args.join(' ');
  const line = `${spec.command}${args ? ` ${args}` : ''}`;
  return `stdio: ${line.length > 120 ? `${line.slice(0, 117)}...` : line}`;
}

/** forge.mcp.autoApprove: { "<server>": true | ["tool", ...] } — anything else allows nothing. */
export function isAutoApproved(setting: unknown, server: string, tool: string): boolean {
  if (!isRecord(setting) || !Object.prototype.hasOwnProperty.call(setting, server)) return false;
  const entry = setting[server];
  if (entry === true) return true;
  return Array.isArray(entry) && entry.includes(tool);
}

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|AUTH|COOKIE|PRIVATE)/i;

/** env / header names that look like credentials but hold a literal value instead of ${input:...} / ${env:...}. */
export function literalSecrets(spec: McpServerSpec): string[] {
  const map = spec.type === 'stdio' ? spec.env : spec.headers;
  return Object.entries(map)
    .filter(([k, v]) => SECRET_NAME.test(k) && v.trim() !== '' && !/\$\{(input|env):/.test(v))
    .map(([k]) => k);
}
