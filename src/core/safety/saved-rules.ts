// Permission rules that outlive a task: "always allow `git commit`", "edits under src/** without asking", an MCP
// tool, a web host; saved for this workspace or for the user, and Claude Code's `permissions` lists read from the
// settings files a team keeps. They reach the decision as the tool's own rule (the prepared call's policyHint), so
// core/safety/policy.ts keeps the order: a deny (anyone's) wins, a sensitive call (the control plane) is always asked,
// a risk class the user denied stays denied. A repository's allow rules never apply by themselves.
import type { PreparedCall, Tool, ToolContext } from '../tools/types';

/** What a rule is about. */
export type RuleKind = 'command' | 'edit' | 'mcp' | 'web';

export interface SavedRule {
  kind: RuleKind;
  /**
   * command: a program and subcommand as "Always for this task" grants them ("git commit", "npm run test"), or a
   * Claude Code pattern with `*` ("npm run test *"); edit: a path glob relative to the workspace ("src/**");
   * mcp: `mcp__server__tool` or `mcp__server` (all its tools); web: a host ("docs.example.com", "*.example.com").
   */
  pattern: string;
  action: 'allow' | 'deny';
  scope: 'user' | 'workspace';
  /** Where it came from, for the list: "saved", ".claude/settings.json"... */
  source: string;
}

const EDIT_TOOLS = new Set(['write_file', 'apply_diff']);

/** A glob ("src/**", "*.md", "docs/*.txt") as a RegExp over a workspace-relative path with forward slashes. */
export function globRegExp(glob: string): RegExp {
  const g = glob.replace(/^\.\//, '').replace(/^\/+/, '');
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '*') {
      if (g[i + 1] === '*') {
        i++;
        if (g[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A bare name or folder ("docs") covers what is under it too, as gitignore patterns do.
  return new RegExp(`^${re}(?:/.*)?$`);
}

/** A command pattern ("npm run test *", "npm run test:*", "git commit") against one simple command. */
function commandMatches(pattern: string, command: string): boolean {
  const p = pattern.trim().replace(/:\*$/, ' *');
  if (!p.includes('*')) return command === p || command.startsWith(`${p} `);
  const re = p
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  // "ls *" keeps a word boundary: "ls" alone matches, "lsof" does not.
  return new RegExp(`^${re}$`).test(command) || (p.endsWith(' *') && command === p.slice(0, -2));
}

/** The simple commands of a command line (chains and pipes split; anything fancier counts as one unknown part). */
function commandParts(line: string): string[] {
  return line
    .split(/&&|\|\||;|\||&|\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/^domain:/, '');
  return p.startsWith('*.') ? host.endsWith(p.slice(1)) : host === p;
}

/** Whether `rule` covers this call. `grantKeys`: what the tool grants for it ("git commit"; a web host). */
export function ruleCovers(rule: SavedRule, toolName: string, input: unknown, grantKeys?: readonly string[]): boolean {
  const args = (input ?? {}) as { path?: unknown; command?: unknown };
  switch (rule.kind) {
    case 'command': {
      if (toolName !== 'execute_command' || typeof args.command !== 'string') return false;
      const parts = commandParts(args.command);
      // Allow: every part must match (a chain is as strong as its weakest part); deny: any part.
      if (rule.action === 'deny') return parts.some((p) => commandMatches(rule.pattern, p));
      return parts.length > 0 && parts.every((p) => commandMatches(rule.pattern, p));
    }
    case 'edit':
      return (
        EDIT_TOOLS.has(toolName) &&
        typeof args.path === 'string' &&
        !args.path.split(/[\\/]/).includes('..') &&
        globRegExp(rule.pattern).test(args.path.replace(/\\/g, '/').replace(/^\.\//, ''))
      );
    case 'mcp':
      return toolName === rule.pattern || toolName.startsWith(`${rule.pattern}__`);
    case 'web':
      return (
        (toolName === 'web_fetch' || toolName === 'web_search') &&
        !!grantKeys?.some((h) => hostMatches(rule.pattern, h))
      );
  }
}

/** The rules in effect now (the caller reads its stores on each call: a removed rule stops at once). */
export type RuleSource = () => readonly SavedRule[];

function describe(rule: SavedRule): string {
  return `${rule.action === 'deny' ? 'denied' : 'allowed'} by a saved rule (${rule.kind} ${rule.pattern}, ${rule.scope === 'user' ? 'user' : 'this workspace'}, ${rule.source})`;
}

/**
 * The tool with the saved rules as part of its own rule: a matching deny denies; otherwise the tool's own hint
 * decides; otherwise a matching allow allows. A command is allowed only through the tool's own grant logic (as if
 * "Always for this task" had granted its program and subcommand), so the parsed-command checks still apply. The
 * policy still asks a sensitive call and denies a denied risk class.
 */
export function withSavedRules<T extends Tool>(tool: T, rules: RuleSource): T {
  const original = tool;
  const wrapped: Tool = {
    ...original,
    prepare: async (input: unknown, ctx: ToolContext): Promise<PreparedCall> => {
      const prepared: PreparedCall = original.prepare ? await original.prepare(input, ctx) : { kind: 'ready' };
      if (prepared.kind !== 'ready') return prepared;
      const all = rules();
      const deny = all.find((r) => r.action === 'deny' && ruleCovers(r, original.name, input, prepared.grantKeys));
      const own = prepared.policyHint;
      if (original.name === 'execute_command') {
        const keys = prepared.grantKeys ?? [];
        const allows = all.filter((r) => r.kind === 'command' && r.action === 'allow');
        const covered = keys.length > 0 && keys.every((k) => allows.some((a) => commandMatches(a.pattern, k)));
        const allow = covered ? allows.find((a) => keys.some((k) => commandMatches(a.pattern, k))) : undefined;
        if (!deny && !allow) return prepared;
        return {
          ...prepared,
          policyHint: (grants) => {
            if (deny) return { action: 'deny', reason: `${original.name} is ${describe(deny)}.` };
            const hint = own?.(new Set([...grants, ...keys]));
            return hint?.action === 'allow'
              ? { action: 'allow', reason: `${original.name} is ${describe(allow!)}.` }
              : own?.(grants);
          },
        };
      }
      const allow = all.find((r) => r.action === 'allow' && ruleCovers(r, original.name, input, prepared.grantKeys));
      if (!deny && !allow) return prepared;
      return {
        ...prepared,
        policyHint: (grants) => {
          if (deny) return { action: 'deny', reason: `${original.name} is ${describe(deny)}.` };
          const hint = own?.(grants);
          if (hint) return hint;
          return allow ? { action: 'allow', reason: `${original.name} is ${describe(allow)}.` } : undefined;
        },
      };
    },
  };
  return wrapped as T;
}

/**
 * Claude Code's permission rules ("Bash(npm run test *)", "Edit(./src/**)", "WebFetch(domain:x)", "mcp__srv__tool")
 * as saved rules; what Forge has no equivalent for is returned in `skipped`.
 */
export function parseClaudePermissions(
  permissions: unknown,
  scope: SavedRule['scope'],
  source: string,
): { rules: SavedRule[]; skipped: string[] } {
  const out = { rules: [] as SavedRule[], skipped: [] as string[] };
  if (typeof permissions !== 'object' || permissions === null) return out;
  const p = permissions as Record<string, unknown>;
  for (const [list, action] of [
    ['allow', 'allow'],
    ['deny', 'deny'],
  ] as const) {
    const entries = Array.isArray(p[list]) ? (p[list] as unknown[]) : [];
    for (const e of entries) {
      if (typeof e !== 'string') continue;
      const rule = claudeRule(e.trim(), action, scope, source);
      if (rule) out.rules.push(rule);
      else out.skipped.push(`${list}: ${e}`);
    }
  }
  return out;
}

function claudeRule(
  text: string,
  action: SavedRule['action'],
  scope: SavedRule['scope'],
  source: string,
): SavedRule | undefined {
  const base = { action, scope, source };
  if (/^mcp__[\w-]+(__[\w-]+)?$/.test(text)) return { ...base, kind: 'mcp', pattern: text };
  const m = /^(\w+)(?:\((.*)\))?$/.exec(text);
  if (!m) return undefined;
  const [, tool, spec] = m;
  if (tool === 'Bash')
    return spec
      ? { ...base, kind: 'command', pattern: spec }
      : action === 'deny'
        ? { ...base, kind: 'command', pattern: '*' }
        : undefined;
  if (tool === 'Edit' || tool === 'Write' || tool === 'MultiEdit')
    return spec && !spec.startsWith('//') && !spec.startsWith('~')
      ? { ...base, kind: 'edit', pattern: spec }
      : undefined;
  if (tool === 'WebFetch' && spec?.startsWith('domain:')) return { ...base, kind: 'web', pattern: spec.slice(7) };
  return undefined;
}
