// MCP configuration on disk, read the same way by the extension and the `forge` command line: a folder's
// `.vscode/mcp.json` (stdio servers run in that folder unless they say otherwise) and a server's envFile.
// A workspace's mcp.json is control plane: read under the read_file rule (core/safety/confined-read.ts), so a
// link out of the workspace, a FIFO or a huge file is refused with a problem, never read or waited on.
import * as path from 'node:path';
import { parseEnvFile, parseMcpConfig, stripJsonComments, type ParsedMcpConfig, type McpServerSpec } from '../../../core/mcp/config';
import { ConfinedReader } from '../../../core/safety/confined-read';
import { NodeWorkspaceFs } from '../node-fs';
import { readRegularFile } from '../regular-file';

export const MCP_JSON = '.vscode/mcp.json';
/** An MCP config or env file larger than this is refused (configuration, not data). */
export const MCP_CONFIG_MAX_BYTES = 1024 * 1024;

function parse(text: string, label: string, defaultCwd?: string): ParsedMcpConfig {
  try {
    const parsed = parseMcpConfig(JSON.parse(stripJsonComments(text)), label);
    if (defaultCwd) parsed.servers = parsed.servers.map((s) => (s.type === 'stdio' && !s.cwd ? { ...s, cwd: defaultCwd } : s));
    return parsed;
  } catch (err) {
    return { servers: [], inputs: [], problems: [`${label}: not valid JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
}

function unread(label: string, why: string): ParsedMcpConfig {
  return { servers: [], inputs: [], problems: [`${label} was not read: ${why}`] };
}

/**
 * A config file the user named (the CLI's --mcp-config): servers, inputs and problems; undefined when the file
 * does not exist. Anywhere on disk, but a regular file of at most MCP_CONFIG_MAX_BYTES. `label` names it in messages.
 */
export async function readMcpConfigFile(file: string, label: string, defaultCwd?: string): Promise<ParsedMcpConfig | undefined> {
  let read: { data: Uint8Array; truncated: boolean };
  try {
    read = await readRegularFile(file, MCP_CONFIG_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return undefined;
    return unread(label, err instanceof Error ? err.message : String(err));
  }
  if (read.truncated) return unread(label, `it is larger than ${MCP_CONFIG_MAX_BYTES / (1024 * 1024)} MB`);
  return parse(new TextDecoder().decode(read.data), label, defaultCwd);
}

/**
 * A workspace folder's `.vscode/mcp.json`, read through the ConfinedReader (inside the folder once links are
 * resolved, not .forgeignore'd, a regular text file, capped); undefined when there is none. A refused file is
 * one problem naming why, and no servers.
 */
export async function readWorkspaceMcpConfig(folder: string, label: string = MCP_JSON): Promise<ParsedMcpConfig | undefined> {
  const reader = new ConfinedReader(new NodeWorkspaceFs([folder]));
  const r = await reader.readText(path.join(folder, ...MCP_JSON.split('/')), { maxBytes: MCP_CONFIG_MAX_BYTES });
  if (!r.ok) return r.code === 'missing' ? undefined : unread(label, r.why);
  return parse(r.text, label, folder);
}

/** A resolved stdio spec with its envFile's variables added (the spec's own env wins). */
export async function withEnvFile(spec: McpServerSpec, folder: string | undefined): Promise<McpServerSpec> {
  if (spec.type !== 'stdio' || !spec.envFile) return spec;
  const file = path.isAbsolute(spec.envFile) ? spec.envFile : path.join(spec.cwd ?? folder ?? '', spec.envFile);
  // A FIFO or a device named as the envFile must not hang the host; the file itself is the server's to read (often
  // a .env: its values go to the server's environment, never to the model).
  const read = await readRegularFile(file, MCP_CONFIG_MAX_BYTES);
  if (read.truncated) throw new Error(`envFile ${spec.envFile} is larger than ${MCP_CONFIG_MAX_BYTES / (1024 * 1024)} MB`);
  const fromFile = parseEnvFile(new TextDecoder().decode(read.data));
  return { ...spec, env: { ...fromFile, ...spec.env } };
}
