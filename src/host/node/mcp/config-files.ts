// MCP configuration on disk, read the same way by the extension and the `forge` command line: a folder's
// `.vscode/mcp.json` (stdio servers run in that folder unless they say otherwise) and a server's envFile.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { parseEnvFile, parseMcpConfig, stripJsonComments, type ParsedMcpConfig, type McpServerSpec } from '../../../core/mcp/config';

export const MCP_JSON = '.vscode/mcp.json';

/** A config file's servers, inputs and problems; undefined when the file does not exist. `label` names it in messages. */
export async function readMcpConfigFile(file: string, label: string, defaultCwd?: string): Promise<ParsedMcpConfig | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = parseMcpConfig(JSON.parse(stripJsonComments(text)), label);
    if (defaultCwd) parsed.servers = parsed.servers.map((s) => (s.type === 'stdio' && !s.cwd ? { ...s, cwd: defaultCwd } : s));
    return parsed;
  } catch (err) {
    return { servers: [], inputs: [], problems: [`${label}: not valid JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
}

/** A resolved stdio spec with its envFile's variables added (the spec's own env wins). */
export async function withEnvFile(spec: McpServerSpec, folder: string | undefined): Promise<McpServerSpec> {
  if (spec.type !== 'stdio' || !spec.envFile) return spec;
  const file = path.isAbsolute(spec.envFile) ? spec.envFile : path.join(spec.cwd ?? folder ?? '', spec.envFile);
  const fromFile = parseEnvFile(await fsp.readFile(file, 'utf8'));
  return { ...spec, env: { ...fromFile, ...spec.env } };
}
