// Per-mode context gathered before a run's first step (the "perceive" phase), within a token budget:
// plan -> the project's manifests and a bounded tree of its structure; review -> the working-tree diff;
// test -> the test files and the last test run. Read through the same sandbox as the file tools (secrets,
// .forgeignore, .gitignore honoured); git runs only in a trusted workspace, read-only, without hooks or
// external diff programs.
import { ConfinedReader, isWorthWarning } from '../safety/confined-read';
import { WorkspaceSandbox, type SandboxOptions } from '../safety/paths';
import { walk } from '../tools/builtin/walk';
import type { CommandRunner, WorkspaceFs } from '../workspace/types';
import type { ModeName } from './index';

interface ModeContext {
  /** Markdown for the prompt's dynamic layer. */
  text: string;
  /** What was gathered, for the UI (e.g. "package.json", "tree (84 entries)", "git diff (3 files)"). */
  sources: string[];
}

/** Gathers the context of a mode; undefined when the mode gathers none (or nothing was found). */
export type ModeContextGatherer = (
  mode: ModeName,
  budgetTokens: number,
  signal: AbortSignal,
) => Promise<ModeContext | undefined>;

export interface TestRunRecord {
  command: string;
  exitCode?: number | null;
  output: string;
  /** ms since epoch */
  at: number;
}

interface ModeContextDeps {
  fs: WorkspaceFs;
  sandbox: SandboxOptions;
  /** Runs `git`; commands run only when the workspace is trusted. Without it review mode has no diff. */
  runner?: CommandRunner;
  lastTestRun?: () => TestRunRecord | undefined;
  now?: () => number;
}

const CHARS_PER_TOKEN = 4;

/** Files that describe a project, in the order they are shown. */
const MANIFESTS = [
  'package.json',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'requirements.txt',
  'Cargo.toml',
  'go.mod',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'Gemfile',
  'composer.json',
  'mix.exs',
  'Package.swift',
  'pubspec.yaml',
  'CMakeLists.txt',
  'Makefile',
  'deno.json',
  'tsconfig.json',
];

const TREE_SKIP = new Set([
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.venv',
  'venv',
  '__pycache__',
  '.next',
  '.cache',
  '.idea',
  '.vscode-test',
  'vendor',
]);
const TEST_FILE =
  /(^|\/)(__tests__|tests?|spec|e2e)\/|(^|[._-])(test|spec)s?\.[^/]+$|_test\.(go|py|rb|exs?)$|(^|\/)test_[^/]+\.py$/i;

/** Text capped at `chars`, with a note of how much was left out. */
function capText(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const keep = Math.max(0, chars - 60);
  return `${text.slice(0, keep)}\n… (${text.length - keep} more characters not shown)`;
}

export function isTestFile(rel: string): boolean {
  return TEST_FILE.test(rel);
}

export function createModeContextGatherer(deps: ModeContextDeps): ModeContextGatherer {
  const sandbox = new WorkspaceSandbox(deps.fs, deps.sandbox);
  const reader = ConfinedReader.over(sandbox);
  return async (mode, budgetTokens, signal) => {
    const chars = Math.max(0, Math.floor(budgetTokens * CHARS_PER_TOKEN));
    if (chars < 200 || deps.fs.roots().length === 0) return undefined;
    const g = new Gatherer(deps, sandbox, reader, signal);
    switch (mode) {
      case 'plan':
        return g.plan(chars);
      case 'review':
        return g.review(chars);
      case 'test':
        return g.test(chars);
      default:
        return undefined;
    }
  };
}

class Gatherer {
  constructor(
    private readonly deps: ModeContextDeps,
    private readonly sandbox: WorkspaceSandbox,
    private readonly reader: ConfinedReader,
    private readonly signal: AbortSignal,
  ) {}

  private get root(): string {
    return this.deps.fs.roots()[0];
  }

  /** A manifest's text, read under the read_file rule (ConfinedReader: no link out, no secret, no FIFO, capped). */
  private async readText(rel: string, maxChars: number): Promise<string | undefined> {
    const r = await this.reader.readText(rel, { maxBytes: maxChars * 2, overCap: 'truncate', signal: this.signal });
    if (!r.ok) {
      if (isWorthWarning(r) && r.code !== 'ignored') this.deps.sandbox.warn?.(`Mode context: skipped ${r.message}`);
      return undefined;
    }
    return capText(r.text, maxChars);
  }

  /** Paths under the first folder, breadth-first, honouring the file tools' rules; at most `max`. */
  private async paths(
    max: number,
    skip: (rel: string) => boolean = () => false,
  ): Promise<{ rel: string; dir: boolean }[]> {
    const r = await this.sandbox.resolve(this.root, 'list');
    if (!r.ok) return [];
    const out: { rel: string; dir: boolean }[] = [];
    let seen = 0;
    for await (const e of walk(this.sandbox, r, { recursive: true, signal: this.signal })) {
      if (++seen > 20_000 || out.length >= max) break;
      const parts = e.rel.split('/');
      if (parts.some((p) => TREE_SKIP.has(p.toLowerCase())) || skip(e.rel)) continue;
      out.push({ rel: e.rel, dir: e.type === 'dir' });
    }
    return out;
  }

  async plan(chars: number): Promise<ModeContext | undefined> {
    const sources: string[] = [];
    const parts: string[] = ['## Project context (gathered for planning)'];
    // Manifests get up to 55% of the budget, the tree the rest.
    let left = Math.floor(chars * 0.55);
    for (const name of MANIFESTS) {
      if (left < 200) break;
      const text = await this.readText(name, Math.min(left, 4000));
      if (text === undefined) continue;
      const block = `### ${name}\n\`\`\`\n${text.trim()}\n\`\`\``;
      parts.push(block);
      sources.push(name);
      left -= block.length;
    }
    const treeChars = chars - parts.join('\n\n').length - 100;
    const tree = await this.tree(treeChars);
    if (tree) {
      parts.push(`### Structure (depth ≤ 3)\n\`\`\`\n${tree.text}\n\`\`\``);
      sources.push(`tree (${tree.entries} entries)`);
    }
    if (!sources.length) return undefined;
    return { text: capText(parts.join('\n\n'), chars), sources };
  }

  /** An indented tree, depth ≤ 3, folders first; a folder with many entries shows the first ones and a count. */
  private async tree(chars: number): Promise<{ text: string; entries: number } | undefined> {
    if (chars < 100) return undefined;
    const all = await this.paths(3000, (rel) => rel.split('/').length > 3);
    if (!all.length) return undefined;
    const children = new Map<string, { rel: string; dir: boolean }[]>();
    for (const p of all) {
      const parent = p.rel.includes('/') ? p.rel.slice(0, p.rel.lastIndexOf('/')) : '';
      const list = children.get(parent) ?? [];
      list.push(p);
      children.set(parent, list);
    }
    const lines: string[] = [];
    let used = 0;
    let entries = 0;
    const emit = (line: string) => {
      if (used + line.length + 1 > chars) return false;
      lines.push(line);
      used += line.length + 1;
      return true;
    };
    const visit = (dir: string, depth: number): boolean => {
      const kids = (children.get(dir) ?? []).sort(
        (a, b) => Number(b.dir) - Number(a.dir) || a.rel.localeCompare(b.rel),
      );
      const shown = kids.slice(0, depth === 0 ? 40 : 15);
      for (const k of shown) {
        const name = k.rel.slice(k.rel.lastIndexOf('/') + 1);
        if (!emit(`${'  '.repeat(depth)}${name}${k.dir ? '/' : ''}`)) return false;
        entries++;
        if (k.dir && depth < 2 && !visit(k.rel, depth + 1)) return false;
      }
      if (kids.length > shown.length && !emit(`${'  '.repeat(depth)}… (${kids.length - shown.length} more)`))
        return false;
      return true;
    };
    visit('', 0);
    return { text: lines.join('\n'), entries };
  }

  private async git(args: string, maxOutputChars: number): Promise<{ ok: boolean; output: string }> {
    const runner = this.deps.runner;
    if (!runner || !this.deps.sandbox.trusted) return { ok: false, output: '' };
    // No hooks, pager, external diff or fsmonitor: a repository's config cannot make this run anything else.
    const command = `git -c core.fsmonitor=false -c core.pager=cat -c diff.external= --no-pager ${args}`;
    const r = await runner.run({
      command,
      cwd: this.root,
      timeoutMs: 10_000,
      signal: this.signal,
      maxOutputChars,
      env: { GIT_OPTIONAL_LOCKS: '0' },
    });
    return { ok: r.exitCode === 0, output: r.output };
  }

  async review(chars: number): Promise<ModeContext | undefined> {
    if (!this.deps.runner) return undefined;
    if (!this.deps.sandbox.trusted) {
      return {
        text: '## Working-tree changes\nNot gathered: the workspace is not trusted, so Forge runs no commands (not even git).',
        sources: ['no diff (untrusted workspace)'],
      };
    }
    const status = await this.git('status --porcelain=v1 --untracked-files=normal', 8000);
    if (!status.ok) {
      return {
        text: '## Working-tree changes\nNo git repository here (or git is not installed): review the files the user names.',
        sources: ['no git repository'],
      };
    }
    const changed = status.output.split('\n').filter((l) => l.trim());
    if (!changed.length)
      return {
        text: '## Working-tree changes\nThe working tree is clean: no uncommitted changes to review.',
        sources: ['clean working tree'],
      };
    // A repository without a commit yet has no HEAD: then the staged and unstaged changes against the index.
    const hasHead = (await this.git('rev-parse --verify --quiet HEAD', 200)).ok;
    const base = hasHead ? 'diff HEAD' : 'diff';
    const stat = await this.git(`${base} --no-color --no-ext-diff --stat=120`, 6000);
    const head = [
      `## Working-tree changes (gathered for review)`,
      `### git status\n\`\`\`\n${capText(changed.join('\n'), 2000)}\n\`\`\``,
    ];
    if (stat.ok && stat.output.trim())
      head.push(`### git ${base} --stat\n\`\`\`\n${capText(stat.output.trim(), 2000)}\n\`\`\``);
    const room = chars - head.join('\n\n').length - 60;
    if (room > 300) {
      const diff = await this.git(`${base} --no-color --no-ext-diff --unified=3`, room + 2000);
      if (diff.ok && diff.output.trim())
        head.push(`### git ${base}\n\`\`\`diff\n${capText(diff.output.trim(), room)}\n\`\`\``);
    }
    return {
      text: capText(head.join('\n\n'), chars),
      sources: [`git diff (${changed.length} file${changed.length === 1 ? '' : 's'})`],
    };
  }

  async test(chars: number): Promise<ModeContext | undefined> {
    const sources: string[] = [];
    const parts: string[] = ['## Test context (gathered for testing)'];
    const pkg = await this.readText('package.json', 20_000);
    if (pkg) {
      try {
        const scripts = (JSON.parse(pkg) as { scripts?: Record<string, string> }).scripts ?? {};
        const testScripts = Object.entries(scripts).filter(([k]) => /test|spec|e2e|check/i.test(k));
        if (testScripts.length) {
          parts.push(
            `### Test scripts (package.json)\n${testScripts
              .slice(0, 15)
              .map(([k, v]) => `- \`${k}\`: \`${String(v).slice(0, 200)}\``)
              .join('\n')}`,
          );
          sources.push('package.json scripts');
        }
      } catch {
        // not JSON: the file list still helps
      }
    }
    const last = this.deps.lastTestRun?.();
    let lastBlock = '';
    if (last) {
      const ago = Math.max(0, Math.round(((this.deps.now ?? Date.now)() - last.at) / 60_000));
      const tail =
        last.output.length > Math.floor(chars * 0.4) ? `…${last.output.slice(-Math.floor(chars * 0.4))}` : last.output;
      lastBlock = `### Last test run (${ago} min ago): \`${last.command.slice(0, 300)}\` → exit ${last.exitCode ?? 'none'}\n\`\`\`\n${tail.trim()}\n\`\`\``;
    }
    const files = (await this.paths(400, (rel) => !isTestFile(rel))).filter((p) => !p.dir).map((p) => p.rel);
    if (files.length) {
      const room = Math.max(300, chars - parts.join('\n\n').length - lastBlock.length - 100);
      const listed: string[] = [];
      let used = 0;
      for (const f of files) {
        if (used + f.length + 3 > room) break;
        listed.push(`- ${f}`);
        used += f.length + 3;
      }
      const more = files.length - listed.length;
      parts.push(
        `### Test files (${files.length}${files.length >= 400 ? '+' : ''})\n${listed.join('\n')}${more > 0 ? `\n- … ${more} more` : ''}`,
      );
      sources.push(`${files.length} test file${files.length === 1 ? '' : 's'}`);
    }
    if (lastBlock) {
      parts.push(lastBlock);
      sources.push('last test run');
    }
    if (!sources.length) return undefined;
    return { text: capText(parts.join('\n\n'), chars), sources };
  }
}

/** Commands that run tests (for remembering the last test run from execute_command calls). */
const TEST_COMMAND =
  /\b(npm|pnpm|yarn|bun)\s+(run\s+)?(test|t)\b|\b(jest|vitest|mocha|pytest|tox|nox|phpunit|rspec|ctest)\b|\bgo\s+test\b|\bcargo\s+(test|nextest)\b|\bpython3?\s+-m\s+(pytest|unittest)\b|\b(mvn|gradle|gradlew|\.\/gradlew)\b.*\btest\b|\bdotnet\s+test\b|\bmix\s+test\b|\bnpx\s+(jest|vitest|mocha|playwright)\b/;

export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}
