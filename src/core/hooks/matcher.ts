// Which hooks an event runs: Claude Code's matcher rules over the tool's name, where the name is Forge's own or
// the one the anchors use for the same tool (a team's "Bash" hook guards execute_command).

/** Forge's tool names and the names Claude Code gives the same tools (its hook files and rules use those). */
const ANCHOR_NAMES: Record<string, string> = {
  execute_command: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  apply_diff: 'Edit',
  list_files: 'LS',
  search_files: 'Grep',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  delegate_task: 'Task',
  update_plan: 'TodoWrite',
};

/** The anchors' name of a Forge tool (MCP tools already share the mcp__server__tool form), or the name itself. */
export function anchorToolName(forgeName: string): string {
  return ANCHOR_NAMES[forgeName] ?? forgeName;
}

const EXACT = /^[A-Za-z0-9_ ,|-]*$/;

/** Whether `matcher` selects a value (a tool name, a SessionStart source, a PreCompact trigger). */
export function matcherSelects(matcher: string, values: readonly string[]): boolean {
  const m = matcher.trim();
  if (m === '' || m === '*') return true;
  if (EXACT.test(m)) {
    const names = m
      .split(/[|,]/)
      .map((s) => s.trim())
      .filter(Boolean);
    // Claude Code renamed Task to Agent; a matcher for either selects the sub-agent tool.
    return values.some((v) => names.includes(v) || (v === 'Task' && names.includes('Agent')));
  }
  let re: RegExp;
  try {
    re = new RegExp(m);
  } catch {
    return false;
  }
  return values.some((v) => re.test(v));
}
