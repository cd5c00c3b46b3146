// MCP configuration on disk, read the same way by the extension and the `forge` command line: a folder's
// `.vscode/mcp.json` (stdio servers run in that folder unless they say otherwise) and a server's envFile.
// A workspace's mcp.json is control plane: read under the read_file rule (core/safety/confined-read.ts), so a
// link out of the workspace, a FIFO or a huge file is refused with a problem, never read or waited on.
import * as path from 'node:path';
import {
  parseEnvFile,
  parseMcpConfig,
  resolveString,
  stripJsonComments,
  type ParsedMcpConfig,
  type McpServerSpec,
  type VariableContext,
} from '../../core/mcp/config';
import { digestText } from '../../core/mcp/permission';
import { ConfinedReader } from '../../core/safety/confined-read';
import { NodeWorkspaceFs } from '../node-fs';
import { readRegularFile } from '../regular-file';
import { errorText } from '../../core/error-text';

export const MCP_JSON = '.vscode/mcp.json';
/** An MCP config or env file larger than this is refused (configuration, not data). */
const MCP_CONFIG_MAX_BYTES = 1024 * 1024;

function parse(text: string, label: string, defaultCwd?: string): ParsedMcpConfig {
  try {
    const parsed = parseMcpConfig(JSON.parse(stripJsonComments(text)), label);
    if (defaultCwd)
      parsed.servers = parsed.servers.map((s) => (s.type === 'stdio' && !s.cwd ? { ...s, cwd: defaultCwd } : s));
    return parsed;
  } catch (err) {
    return {
      servers: [],
      inputs: [],
      problems: [`${label}: not valid JSON (${errorText(err)})`],
    };
  }
}

function unread(label: string, why: string): ParsedMcpConfig {
  return { servers: [], inputs: [], problems: [`${label} was not read: ${why}`] };
}

/**
 * A config file the user named (the CLI's --mcp-config): servers, inputs and problems; undefined when the file
 * does not exist. Anywhere on disk, but a regular file of at most MCP_CONFIG_MAX_BYTES. `label` names it in messages.
 */
export async function readMcpConfigFile(
  file: string,
  label: string,
  defaultCwd?: string,
): Promise<ParsedMcpConfig | undefined> {
  let read: { data: Uint8Array; truncated: boolean };
  try {
    read = await readRegularFile(file, MCP_CONFIG_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return undefined;
    return unread(label, errorText(err));
  }
  if (read.truncated) return unread(label, `it is larger than ${MCP_CONFIG_MAX_BYTES / (1024 * 1024)} MB`);
  return parse(new TextDecoder().decode(read.data), label, defaultCwd);
}

/**
 * A workspace folder's `.vscode/mcp.json`, read through the ConfinedReader (inside the folder once links are
 * resolved, not .forgeignore'd, a regular text file, capped); undefined when there is none. A refused file is
 * one problem naming why, and no servers.
 */
export async function readWorkspaceMcpConfig(
  folder: string,
  label: string = MCP_JSON,
): Promise<ParsedMcpConfig | undefined> {
  const reader = new ConfinedReader(new NodeWorkspaceFs([folder]));
  const r = await reader.readText(path.join(folder, ...MCP_JSON.split('/')), { maxBytes: MCP_CONFIG_MAX_BYTES });
  if (!r.ok) return r.code === 'missing' ? undefined : unread(label, r.why);
  return parse(r.text, label, folder);
}

/** An envFile as read once for a start: its content (or why there is none) and its digest, for the permission. */
export interface EnvFileSnapshot {
  file: string;
  /** The bytes read; undefined when the file could not be read (then `problem` says why). */
  data?: Uint8Array;
  problem?: string;
  /** digestText(data), or a word for why there is no content ('missing', 'unreadable ...', 'too large'). */
  digest: string;
}

/** Where a stdio spec's envFile is, relative paths from its cwd (or the folder). */
function envFilePath(envFile: string, cwd: string | undefined, folder: string | undefined): string {
  return path.isAbsolute(envFile) ? envFile : path.join(cwd ?? folder ?? '', envFile);
}

/**
 * Reads a spec's envFile once, for the permission (its digest) and then for the start (the same bytes, so what
 * was allowed is what runs). The spec's envFile and cwd may still hold ${...} variables: they are resolved with
 * `vars` (an ${input:} is left as it is). Undefined for a spec without an envFile.
 */
export async function readEnvFile(
  spec: McpServerSpec,
  folder: string | undefined,
  vars: Omit<VariableContext, 'input'>,
): Promise<EnvFileSnapshot | undefined> {
  if (spec.type !== 'stdio' || !spec.envFile) return undefined;
  const keep: VariableContext = { ...vars, input: async (id) => `\${input:${id}}` };
  const file = envFilePath(
    await resolveString(spec.envFile, keep),
    spec.cwd ? await resolveString(spec.cwd, keep) : undefined,
    folder,
  );
  try {
    // A FIFO or a device named as the envFile must not hang the host.
    const read = await readRegularFile(file, MCP_CONFIG_MAX_BYTES);
    if (read.truncated)
      return {
        file,
        problem: `envFile ${spec.envFile} is larger than ${MCP_CONFIG_MAX_BYTES / (1024 * 1024)} MB`,
        digest: 'too large',
      };
    return { file, data: read.data, digest: digestText(read.data) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    return {
      file,
      problem: errorText(err),
      digest: code === 'ENOENT' ? 'missing' : `unreadable ${code ?? ''}`.trim(),
    };
  }
}

/**
 * A resolved stdio spec with its envFile's variables added (the spec's own env wins). `snapshot` is the envFile
 * as read for the permission: used as it is when it names the same file, so nothing changes in between.
 */
export async function withEnvFile(
  spec: McpServerSpec,
  folder: string | undefined,
  snapshot?: EnvFileSnapshot,
): Promise<McpServerSpec> {
  if (spec.type !== 'stdio' || !spec.envFile) return spec;
  const file = envFilePath(spec.envFile, spec.cwd, folder);
  let data: Uint8Array;
  if (snapshot && snapshot.file === file) {
    if (!snapshot.data) throw new Error(snapshot.problem ?? `envFile ${spec.envFile} could not be read`);
    data = snapshot.data;
  } else {
    // A FIFO or a device named as the envFile must not hang the host; the file itself is the server's to read (often
    // a .env: its values go to the server's environment, never to the model).
    const read = await readRegularFile(file, MCP_CONFIG_MAX_BYTES);
    if (read.truncated)
      throw new Error(`envFile ${spec.envFile} is larger than ${MCP_CONFIG_MAX_BYTES / (1024 * 1024)} MB`);
    data = read.data;
  }
  const fromFile = parseEnvFile(new TextDecoder().decode(data));
  return { ...spec, env: { ...fromFile, ...spec.env } };
}
