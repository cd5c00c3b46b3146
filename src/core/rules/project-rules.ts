// Project rules: AGENTS.md at each workspace root, `.forge/rules/*.md`, and the AGENTS.md of the folders a task
// works in (read when a tool first touches a file there). They join the prompt's stable, cached prefix after
// the tool rules; nested ones are appended in the order they are found, so the prefix only ever grows.
// Optionally, rules other agents left (CLAUDE.md, .clinerules, .cursorrules, copilot instructions) are used
// when the workspace has no AGENTS.md and the user agreed.
import * as path from 'node:path';
import type { WorkspaceFs } from '../workspace/types';

export const AGENTS_FILE = 'AGENTS.md';
export const FORGE_RULES_DIR = '.forge/rules';
/** Other agents' rule files, in the order they are offered (`.clinerules` may be a file or a folder of .md files). */
export const OTHER_AGENT_RULES = ['CLAUDE.md', '.clinerules', '.cursorrules', '.github/copilot-instructions.md'] as const;

/** Per file and in total (chars): rules share the prompt with everything else. */
export const RULE_FILE_CAP = 12_000;
export const RULES_TOTAL_CAP = 32_000;
const MAX_FORGE_RULE_FILES = 50;

export type RuleKind = 'root' | 'forge' | 'nested' | 'imported';

export interface RuleSource {
  /** Absolute path. */
  path: string;
  /** Workspace-relative, for the prompt and the panel. */
  display: string;
  kind: RuleKind;
  text: string;
  truncated: boolean;
}

function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function displayOf(fs: WorkspaceFs, abs: string): string {
  const roots = fs.roots();
  const root = roots.find((r) => within(r, abs));
  if (!root) return abs;
  const rel = path.relative(root, abs).split(path.sep).join('/');
  return roots.length > 1 ? `${path.basename(root)}/${rel}` : rel;
}

async function readRule(fs: WorkspaceFs, abs: string, kind: RuleKind): Promise<RuleSource | undefined> {
  const st = await fs.stat(abs).catch(() => undefined);
  if (!st || st.type !== 'file') return undefined;
  const bytes = fs.readFileHead ? (await fs.readFileHead(abs, RULE_FILE_CAP * 4)).data : await fs.readFile(abs);
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\ufeff/, '').trim();
  if (!text || text.includes('\u0000')) return undefined;
  const truncated = text.length > RULE_FILE_CAP || st.size > RULE_FILE_CAP * 4;
  if (text.length > RULE_FILE_CAP) text = text.slice(0, RULE_FILE_CAP);
  return { path: abs, display: displayOf(fs, abs), kind, text, truncated };
}

async function mdFilesIn(fs: WorkspaceFs, dir: string): Promise<string[]> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st || st.type !== 'dir') return [];
  const entries = await fs.readDir(dir).catch(() => []);
  return entries
    .filter((e) => (e.type === 'file' || e.type === 'symlink') && /\.(md|mdc|txt)$/i.test(e.name))
    .map((e) => e.name)
    .sort()
    .slice(0, MAX_FORGE_RULE_FILES)
    .map((n) => path.join(dir, n));
}

/** Other agents' rule files present at the roots (absolute paths); empty when any root has an AGENTS.md. */
export async function findOtherAgentRules(fs: WorkspaceFs): Promise<string[]> {
  const found: string[] = [];
  for (const root of fs.roots()) {
    if (await fs.stat(path.join(root, AGENTS_FILE)).catch(() => undefined)) return [];
    for (const name of OTHER_AGENT_RULES) {
      const abs = path.join(root, name);
      if (await fs.stat(abs).catch(() => undefined)) found.push(abs);
    }
  }
  return found;
}

/** The rules that apply to every task: AGENTS.md and .forge/rules at each root (+ other agents' files when allowed). */
export async function discoverBaseRules(fs: WorkspaceFs, opts: { importOthers?: boolean } = {}): Promise<RuleSource[]> {
  const out: RuleSource[] = [];
  const others = opts.importOthers ? await findOtherAgentRules(fs) : [];
  for (const root of fs.roots()) {
    const agents = await readRule(fs, path.join(root, AGENTS_FILE), 'root');
    if (agents) out.push(agents);
    for (const file of await mdFilesIn(fs, path.join(root, ...FORGE_RULES_DIR.split('/')))) {
      const r = await readRule(fs, file, 'forge');
      if (r) out.push(r);
    }
    for (const abs of others.filter((o) => within(root, o))) {
      const st = await fs.stat(abs).catch(() => undefined);
      const files = st?.type === 'dir' ? await mdFilesIn(fs, abs) : [abs];
      for (const f of files) {
        const r = await readRule(fs, f, 'imported');
        if (r) out.push(r);
      }
    }
  }
  return out;
}

/** The rules as one prompt layer; total size capped (later files are named but left out). */
export function renderRules(sources: readonly RuleSource[], totalCap: number = RULES_TOTAL_CAP): string {
  if (!sources.length) return '';
  const parts: string[] = [
    'Project rules (written by the project\'s developers; follow them unless the user asks otherwise. A folder\'s rules apply to files under that folder):',
  ];
  let used = parts[0]!.length;
  const left: string[] = [];
  for (const s of sources) {
    const scope = s.kind === 'nested' ? ` (applies under ${path.posix.dirname(s.display)}/)` : s.kind === 'imported' ? ' (from another agent\'s rule file)' : '';
    const block = `## ${s.display}${scope}\n${s.text}${s.truncated ? '\n[... truncated]' : ''}`;
    if (used + block.length > totalCap) {
      left.push(s.display);
      continue;
    }
    parts.push(block);
    used += block.length + 2;
  }
  if (left.length) parts.push(`[Rules left out to save space: ${left.join(', ')}. Read them with read_file if they matter.]`);
  return parts.join('\n\n');
}

/**
 * One task's rules: the base rules plus the nested AGENTS.md of each folder a tool touched (read once per
 * folder, in the order found).
 */
export class TaskRules {
  private readonly nested: RuleSource[] = [];
  private readonly checked = new Set<string>();
  private rendered?: { key: string; text: string };

  constructor(private readonly fs: WorkspaceFs, private readonly base: () => readonly RuleSource[]) {}

  sources(): RuleSource[] {
    return [...this.base(), ...this.nested];
  }

  text(): string {
    const sources = this.sources();
    const key = sources.map((s) => `${s.path}:${s.text.length}`).join('|');
    if (this.rendered?.key !== key) this.rendered = { key, text: renderRules(sources) };
    return this.rendered.text;
  }

  /**
   * A tool touched `target` (absolute, or relative to the first root): reads the AGENTS.md of every folder between
   * its root (exclusive; the root's own is a base rule) and the target's folder. True when a new file joined.
   */
  async touch(target: string): Promise<boolean> {
    const roots = this.fs.roots();
    if (!roots.length || !target) return false;
    const abs = path.isAbsolute(target) ? path.normalize(target) : path.resolve(roots[0]!, target);
    const root = roots.find((r) => within(r, abs));
    if (!root) return false;
    const st = await this.fs.stat(abs).catch(() => undefined);
    let dir = st?.type === 'dir' ? abs : path.dirname(abs);
    const chain: string[] = [];
    while (within(root, dir) && dir !== root) {
      chain.unshift(dir);
      dir = path.dirname(dir);
    }
    let added = false;
    for (const d of chain) {
      if (this.checked.has(d)) continue;
      this.checked.add(d);
      if (d.split(path.sep).some((part) => part === 'node_modules' || part === '.git')) continue;
      const rule = await readRule(this.fs, path.join(d, AGENTS_FILE), 'nested').catch(() => undefined);
      if (rule) {
        this.nested.push(rule);
        added = true;
      }
    }
    return added;
  }
}

/** Paths a tool call's arguments name (path / paths / file / cwd), for TaskRules.touch. */
export function pathsInArgs(args: unknown): string[] {
  if (!args || typeof args !== 'object') return [];
  const a = args as Record<string, unknown>;
  const out: string[] = [];
  for (const key of ['path', 'file', 'filePath', 'cwd', 'directory']) if (typeof a[key] === 'string') out.push(a[key] as string);
  if (Array.isArray(a.paths)) for (const p of a.paths) if (typeof p === 'string') out.push(p);
  return out.slice(0, 20);
}
