// Project rules: AGENTS.md at each workspace root, `.forge/rules/*.md`, and the AGENTS.md of the folders a task
// works in (read when a tool first touches a file there). They join the prompt's stable, cached prefix after
// the tool rules; nested ones are appended in the order they are found, so the prefix only ever grows.
// Optionally, rules other agents left (CLAUDE.md, .clinerules, .cursorrules, copilot instructions) are used
// when the workspace has no AGENTS.md and the user agreed. Every file is read through the ConfinedReader (the
// read_file rule: no link out of the workspace, no secret, no .forgeignore'd file, regular files only): one that
// breaks it is skipped with a warning, and the other rules are still read.
import * as path from 'node:path';
import { ConfinedReader, isWorthWarning, type ConfinedRefusal } from '../safety/confined-read';
import type { WorkspaceFs } from '../workspace/types';

export const AGENTS_FILE = 'AGENTS.md';
const FORGE_RULES_DIR = '.forge/rules';
/** Other agents' rule files, in the order they are offered (`.clinerules` may be a file or a folder of .md files). */
const OTHER_AGENT_RULES = ['CLAUDE.md', '.clinerules', '.cursorrules', '.github/copilot-instructions.md'] as const;

/** Per file and in total (chars): rules share the prompt with everything else. */
export const RULE_FILE_CAP = 12_000;
const RULES_TOTAL_CAP = 32_000;
const MAX_FORGE_RULE_FILES = 50;

type RuleKind = 'root' | 'forge' | 'nested' | 'imported';

export interface RuleSource {
  /** Absolute path. */
  path: string;
  /** Workspace-relative, for the prompt and the panel. */
  display: string;
  kind: RuleKind;
  text: string;
  truncated: boolean;
}

/** Where a rule file that was refused is reported (the extension's log, the CLI's stderr). */
type RuleWarn = (message: string) => void;

function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function readerOf(fs: WorkspaceFs | ConfinedReader, warn: RuleWarn | undefined): ConfinedReader {
  return fs instanceof ConfinedReader ? fs : new ConfinedReader(fs, warn ? { warn } : {});
}

function report(refusal: ConfinedRefusal, warn: RuleWarn | undefined): void {
  if (isWorthWarning(refusal)) warn?.(`Project rules: skipped ${refusal.message}`);
}

async function readRule(
  reader: ConfinedReader,
  abs: string,
  kind: RuleKind,
  warn?: RuleWarn,
): Promise<RuleSource | undefined> {
  const r = await reader.readText(abs, { maxBytes: RULE_FILE_CAP * 4, overCap: 'truncate' });
  if (!r.ok) {
    report(r, warn);
    return undefined;
  }
  let text = r.text.trim();
  if (!text) return undefined;
  const truncated = text.length > RULE_FILE_CAP || r.truncated;
  if (text.length > RULE_FILE_CAP) text = text.slice(0, RULE_FILE_CAP);
  return { path: r.abs, display: r.display, kind, text, truncated };
}

async function mdFilesIn(reader: ConfinedReader, dir: string, warn?: RuleWarn): Promise<string[]> {
  const listing = await reader.listDir(dir);
  if (!listing.ok) {
    // A rules folder that is a file is none of our business; one that leads out of the workspace is.
    if (listing.code !== 'not-a-file') report(listing, warn);
    return [];
  }
  const md = (name: string) => /\.(md|mdc|txt)$/i.test(name);
  for (const r of listing.refused) if (md(r.display)) report(r, warn);
  return listing.entries
    .filter((e) => e.type !== 'dir' && md(e.name))
    .map((e) => e.name)
    .sort()
    .slice(0, MAX_FORGE_RULE_FILES)
    .map((n) => path.join(listing.abs, n));
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

/**
 * The rules that apply to every task: AGENTS.md and .forge/rules at each root (+ other agents' files when allowed).
 * A refused file (a link out of the workspace, a secret, a FIFO...) is left out and named through `warn`.
 */
export async function discoverBaseRules(
  fs: WorkspaceFs | ConfinedReader,
  opts: { importOthers?: boolean; warn?: RuleWarn } = {},
): Promise<RuleSource[]> {
  const { warn } = opts;
  const reader = readerOf(fs, warn);
  const out: RuleSource[] = [];
  const others = opts.importOthers ? await findOtherAgentRules(reader.fs) : [];
  for (const root of reader.fs.roots()) {
    const agents = await readRule(reader, path.join(root, AGENTS_FILE), 'root', warn);
    if (agents) out.push(agents);
    for (const file of await mdFilesIn(reader, path.join(root, ...FORGE_RULES_DIR.split('/')), warn)) {
      const r = await readRule(reader, file, 'forge', warn);
      if (r) out.push(r);
    }
    for (const abs of others.filter((o) => within(root, o))) {
      const st = await reader.fs.stat(abs).catch(() => undefined);
      const files = st?.type === 'dir' ? await mdFilesIn(reader, abs, warn) : [abs];
      for (const f of files) {
        const r = await readRule(reader, f, 'imported', warn);
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
    "Project rules (written by the project's developers; follow them unless the user asks otherwise. A folder's rules apply to files under that folder):",
  ];
  let used = parts[0]!.length;
  const left: string[] = [];
  for (const s of sources) {
    const scope =
      s.kind === 'nested'
        ? ` (applies under ${path.posix.dirname(s.display)}/)`
        : s.kind === 'imported'
          ? " (from another agent's rule file)"
          : '';
    const block = `## ${s.display}${scope}\n${s.text}${s.truncated ? '\n[... truncated]' : ''}`;
    if (used + block.length > totalCap) {
      left.push(s.display);
      continue;
    }
    parts.push(block);
    used += block.length + 2;
  }
  if (left.length)
    parts.push(`[Rules left out to save space: ${left.join(', ')}. Read them with read_file if they matter.]`);
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

  private readonly reader: ConfinedReader;
  private readonly fs: WorkspaceFs;

  constructor(
    fs: WorkspaceFs | ConfinedReader,
    private readonly base: () => readonly RuleSource[],
    private readonly warn?: RuleWarn,
  ) {
    this.reader = readerOf(fs, warn);
    this.fs = this.reader.fs;
  }

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
      const rule = await readRule(this.reader, path.join(d, AGENTS_FILE), 'nested', this.warn).catch(() => undefined);
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
  for (const key of ['path', 'file', 'filePath', 'cwd', 'directory'])
    if (typeof a[key] === 'string') out.push(a[key] as string);
  if (Array.isArray(a.paths)) for (const p of a.paths) if (typeof p === 'string') out.push(p);
  return out.slice(0, 20);
}
