// Claude Code's permission lists for the `forge` command line: the user's ~/.claude/settings.json (allow and deny,
// the user's own) and the workspace's .claude/settings.json and settings.local.json (deny only: a repository's allow
// rules never approve its own commands). They join each tool's rule (core/safety/saved-rules.ts).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfinedReader } from '../core/safety/confined-read';
import { parseClaudePermissions, type SavedRule } from '../core/safety/saved-rules';
import { NodeWorkspaceFs } from '../node/node-fs';

function parse(text: string, scope: SavedRule['scope'], source: string, warn: (m: string) => void): SavedRule[] {
  try {
    return parseClaudePermissions((JSON.parse(text) as { permissions?: unknown }).permissions, scope, source).rules;
  } catch {
    warn(`${source}: not valid JSON; its permission rules are not used`);
    return [];
  }
}

export async function readCliPermissionRules(
  workspace: string,
  warn: (m: string) => void,
  home = os.homedir(),
): Promise<SavedRule[]> {
  const rules: SavedRule[] = [];
  const user = await fsp.readFile(path.join(home, '.claude', 'settings.json'), 'utf8').catch(() => undefined);
  if (user) rules.push(...parse(user, 'user', '~/.claude/settings.json', warn));
  const reader = new ConfinedReader(new NodeWorkspaceFs([workspace]));
  for (const rel of ['.claude/settings.json', '.claude/settings.local.json']) {
    const r = await reader.readText(path.join(workspace, ...rel.split('/')), { maxBytes: 256 * 1024 });
    if (r.ok) rules.push(...parse(r.text, 'workspace', rel, warn).filter((x) => x.action === 'deny'));
  }
  return rules;
}
