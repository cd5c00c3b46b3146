// The tool names teams write in agent and skill files, as Forge's tools. Claude Code names (Read, Edit, Bash...),
// VS Code / GitHub aliases (read, edit, execute...) and Forge's own names are understood; `Bash(git log *)` counts
// as Bash (the pattern is not a grant: Forge's policy still decides each command). MCP tools: `mcp__srv__tool`
// as is, `srv/*` and `mcp__srv` as every tool of that server (a trailing `*` is a prefix).
const ALIASES: Record<string, readonly string[]> = {
  // Claude Code
  read: ['read_file'],
  write: ['write_file'],
  edit: ['apply_diff', 'write_file'],
  multiedit: ['apply_diff'],
  grep: ['search_files'],
  glob: ['list_files'],
  ls: ['list_files'],
  bash: ['execute_command'],
  webfetch: ['web_fetch'],
  websearch: ['web_search'],
  task: ['delegate_task'],
  agent: ['delegate_task'],
  todowrite: ['update_plan'],
  // VS Code / GitHub aliases (read, edit and agent as above)
  execute: ['execute_command'],
  shell: ['execute_command'],
  search: ['search_files', 'list_files'],
  web: ['web_fetch', 'web_search'],
  todo: ['update_plan'],
};

/** Forge's tool names as they are written (snake_case): taken as they are. */
const FORGE_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;

export interface MappedTools {
  /** Forge tool names (an MCP server's tools as `mcp__srv__*`). */
  names: string[];
  /** Entries Forge has no tool for (ignored, as the anchors ignore unknown tools). */
  unknown: string[];
}

export function mapToolNames(entries: readonly string[]): MappedTools {
  const names = new Set<string>();
  const unknown: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    const bare = entry.replace(/\(.*\)$/s, '').trim();
    const alias = ALIASES[bare.toLowerCase()];
    if (alias) alias.forEach((n) => names.add(n));
    else if (/^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_*-]+$/.test(bare)) names.add(bare);
    else if (/^mcp__[A-Za-z0-9_-]+$/.test(bare)) names.add(`${bare}__*`);
    else if (/^[A-Za-z0-9_-]+\/\*$/.test(bare)) names.add(`mcp__${bare.slice(0, -2)}__*`);
    else if (FORGE_NAME.test(bare)) names.add(bare);
    else unknown.push(entry);
  }
  return { names: [...names], unknown };
}

/** Whether an allowlist entry (a name, or a prefix ending in `*`) covers the tool `name`. */
export function allowsTool(entry: string, name: string): boolean {
  return entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name;
}
