// Turns the mentions of a message into labelled context blocks for the model, within a budget:
//   <context kind="file" path="src/greet.js" lines="1-40"> ... </context>
// Every path goes through the read_file rule (ConfinedReader: inside the workspace, no secret, nothing
// .forgeignore excludes); a mention that breaks it is refused with a sentence for the user, and nothing is sent.
// What does not fit is cut with a note that says what was left out and how to read it, never silently.
import { ATTACHED_MARKER } from '../context/usage-report';
import type { ConfinedReader } from '../safety/confined-read';
import { mentionKey, mentionLabel, type Mention } from './mention';
import { plural } from '../plural';

export interface ProblemEntry {
  /** Workspace-relative path. */
  path: string;
  line: number;
  severity: string;
  message: string;
  source?: string;
}

export interface CommandOutput {
  command: string;
  exitCode?: number | null;
  output: string;
}

/** What the host supplies beyond files: the editor, diagnostics, Forge's terminal, git. */
export interface MentionSources {
  reader: ConfinedReader;
  /** The lines of a selection as the editor has them (unsaved changes too); default: read from disk. */
  selection?(path: string, startLine: number, endLine: number): Promise<string | undefined>;
  problems?(path: string | undefined): Promise<ProblemEntry[]>;
  /** Forge's recent commands and their output, oldest first. */
  terminal?(): Promise<CommandOutput[]>;
  /** `git diff` of the working tree (raw unified diff), or a sentence why there is none. */
  git?(maxChars: number): Promise<{ diff: string } | { none: string }>;
}

export interface ResolvedBlock {
  kind: Mention['kind'];
  label: string;
  chars: number;
  /** Cut to fit the budget (the block says what was left out). */
  cut: boolean;
}

export type MentionResolution = { ok: true; text: string; blocks: ResolvedBlock[] } | { ok: false; errors: string[] };

/** Characters kept for the note a cut block ends with. */
const NOTE_ROOM = 300;
const MAX_FOLDER_ENTRIES = 500;

interface Raw {
  mention: Mention;
  attrs: Record<string, string>;
  body: string;
  /** Characters the whole thing has when the body holds only its start (a file larger than the budget). */
  size?: number;
  /** The body cut to at most `max` characters, ending with a note on what was left out. */
  cut(max: number): { body: string; attrs?: Record<string, string> };
}

/** Resolves every mention, or refuses them all when one cannot be used (the user removes that chip). */
export async function resolveMentions(
  mentions: readonly Mention[],
  sources: MentionSources,
  budgetChars: number,
): Promise<MentionResolution> {
  const seen = new Set<string>();
  const unique = mentions.filter((m) => !seen.has(mentionKey(m)) && seen.add(mentionKey(m)));
  const raws: Raw[] = [];
  const errors: string[] = [];
  for (const m of unique) {
    const r = await gather(m, sources, budgetChars);
    if (typeof r === 'string') errors.push(r);
    else raws.push(r);
  }
  if (errors.length) return { ok: false, errors };
  const shares = allocate(
    raws.map((r) => r.size ?? r.body.length),
    budgetChars,
  );
  const blocks: ResolvedBlock[] = [];
  const parts = raws.map((r, i) => {
    const fits = (r.size ?? r.body.length) <= shares[i];
    const c = fits ? { body: r.body } : r.cut(Math.max(0, shares[i] - NOTE_ROOM));
    const attrs = { ...r.attrs, ...c.attrs };
    blocks.push({ kind: r.mention.kind, label: mentionLabel(r.mention), chars: c.body.length, cut: !fits });
    return contextBlock(r.mention.kind, attrs, c.body);
  });
  return { ok: true, text: parts.join('\n\n'), blocks };
}

/** The message the model gets: the user's words, then what they attached. */
export function messageWithContext(userText: string, resolvedText: string): string {
  if (!resolvedText) return userText;
  return `${userText}\n\n${ATTACHED_MARKER}\n${resolvedText}`;
}

/**
 * Splits `budget` between items of these sizes: small ones get all they need, the rest share what is left
 * equally (so one huge file cannot crowd out a small selection).
 */
export function allocate(sizes: readonly number[], budget: number): number[] {
  const shares = new Array<number>(sizes.length).fill(0);
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  let left = Math.max(0, budget);
  order.forEach((idx, n) => {
    const fair = Math.floor(left / (order.length - n));
    shares[idx] = Math.min(sizes[idx], fair);
    left -= shares[idx];
  });
  return shares;
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function contextBlock(kind: string, attrs: Record<string, string>, body: string): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
    .join('');
  // A file that quotes the closing tag must not end the block early.
  const safe = body.replace(/<\/context/gi, '<\\/context');
  return `<context kind="${kind}"${a}>\n${safe.replace(/\n+$/, '')}\n</context>`;
}

function formatSize(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}

/** The first lines of `text` within `max` characters (at least one line's worth when a line is longer). */
function headLines(text: string, max: number): { text: string; lines: number } {
  const lines = text.split('\n');
  let used = 0;
  let n = 0;
  while (n < lines.length && used + lines[n].length + 1 <= max) used += lines[n++].length + 1;
  if (n === 0) return { text: lines[0].slice(0, max), lines: 1 };
  return { text: lines.slice(0, n).join('\n'), lines: n };
}

async function gather(m: Mention, s: MentionSources, budgetChars: number): Promise<Raw | string> {
  switch (m.kind) {
    case 'file':
      return gatherFile(m, s, budgetChars);
    case 'folder':
      return gatherFolder(m, s);
    case 'selection':
      return gatherSelection(m, s, budgetChars);
    case 'problems':
      return gatherProblems(m, s);
    case 'terminal':
      return gatherTerminal(m, s);
    case 'git':
      return gatherGit(m, s, budgetChars);
  }
}

async function gatherFile(
  m: Extract<Mention, { kind: 'file' }>,
  s: MentionSources,
  budgetChars: number,
): Promise<Raw | string> {
  // Up to 1 MB is read whole, so a cut can say how many lines the file has.
  const read = await s.reader.readText(m.path, { maxBytes: Math.max(budgetChars, 1 << 20) + 1, overCap: 'truncate' });
  if (!read.ok) return `@${m.path} cannot be attached: ${read.why}.`;
  const display = read.display;
  const total = read.truncated ? undefined : read.text.replace(/\n$/, '').split('\n').length;
  const full = !read.truncated;
  const cut = (max: number) => {
    const head = headLines(read.text, max);
    const of = total !== undefined ? `of ${total}` : `of a ${formatSize(read.size)} file`;
    return {
      body: `${head.text}\n[Cut to fit the context budget: lines 1-${head.lines} ${of} shown. Read the rest with read_file (path "${display}", startLine ${head.lines + 1}).]`,
      attrs: { lines: `1-${head.lines}` },
    };
  };
  if (!full) {
    // Larger than the whole budget: it will be cut whatever its share (the body length says so).
    return { mention: m, attrs: { path: display }, body: read.text, size: read.size, cut };
  }
  return { mention: m, attrs: { path: display, lines: `1-${total}` }, body: read.text, cut };
}

async function gatherFolder(m: Extract<Mention, { kind: 'folder' }>, s: MentionSources): Promise<Raw | string> {
  const sandbox = s.reader.sandbox;
  const where = await sandbox.resolve(m.path, 'list');
  if (!where.ok) return `@${m.path}/ cannot be attached: ${where.reason}`;
  const list = await s.reader.listDir(m.path);
  if (!list.ok) return `@${m.path}/ cannot be attached: ${list.why}.`;
  const display = s.reader.display(list.abs);
  const names: string[] = [];
  let hidden = 0;
  for (const e of list.entries.sort(
    (a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || (a.name < b.name ? -1 : 1),
  )) {
    const rel = where.rel ? `${where.rel}/${e.name}` : e.name;
    if (sandbox.isGitName(e.name) || (await sandbox.isHidden(where.root, rel, e.type === 'dir'))) {
      hidden++;
      continue;
    }
    names.push(e.type === 'dir' ? `${e.name}/` : e.name);
  }
  const shown = names.slice(0, MAX_FOLDER_ENTRIES);
  const more = names.length - shown.length;
  const notes = [
    more > 0 ? `[${more} more entries not listed: use list_files (path "${display}").]` : '',
    hidden > 0 ? `[${hidden} entries not shown: secrets, .forgeignore or .git.]` : '',
  ].filter(Boolean);
  const body = [...shown, ...notes].join('\n') || '(empty folder)';
  return {
    mention: m,
    attrs: { path: `${display}/`, entries: String(names.length) },
    body,
    cut: (max) => {
      const head = headLines(shown.join('\n'), max);
      return {
        body: `${head.text}\n[Cut to fit the context budget: ${head.lines} of ${names.length} entries listed. List the rest with list_files (path "${display}").]`,
      };
    },
  };
}

async function gatherSelection(
  m: Extract<Mention, { kind: 'selection' }>,
  s: MentionSources,
  budgetChars: number,
): Promise<Raw | string> {
  const label = mentionLabel(m);
  const refused = await s.reader.check(m.path);
  if (refused) return `@${label} cannot be attached: ${refused.why}.`;
  if (m.endLine < m.startLine) return `@${label} cannot be attached: its range is empty.`;
  let text = await s.selection?.(m.path, m.startLine, m.endLine);
  const display = s.reader.display(m.path);
  if (text === undefined) {
    const read = await s.reader.readText(m.path, { maxBytes: Math.max(budgetChars * 4, 1 << 20), overCap: 'truncate' });
    if (!read.ok) return `@${label} cannot be attached: ${read.why}.`;
    const lines = read.text.split('\n');
    if (m.startLine > lines.length) return `@${label} cannot be attached: ${display} has only ${lines.length} lines.`;
    text = lines.slice(m.startLine - 1, m.endLine).join('\n');
  }
  const body = text;
  return {
    mention: m,
    attrs: { path: display, lines: `${m.startLine}-${m.endLine}` },
    body,
    cut: (max) => {
      const head = headLines(body, max);
      const last = m.startLine + head.lines - 1;
      return {
        body: `${head.text}\n[Cut to fit the context budget: lines ${m.startLine}-${last} of the selection's ${m.startLine}-${m.endLine} shown. Read the rest with read_file (path "${display}", startLine ${last + 1}, endLine ${m.endLine}).]`,
        attrs: { lines: `${m.startLine}-${last}` },
      };
    },
  };
}

async function gatherProblems(m: Extract<Mention, { kind: 'problems' }>, s: MentionSources): Promise<Raw | string> {
  if (m.path) {
    const refused = await s.reader.check(m.path);
    if (refused) return `@${mentionLabel(m)} cannot be attached: ${refused.why}.`;
  }
  const all = (await s.problems?.(m.path)) ?? [];
  // Diagnostics quote code: a secret or ignored file's problems stay out like its text.
  const allowed = new Map<string, boolean>();
  const kept: ProblemEntry[] = [];
  for (const p of all) {
    if (!allowed.has(p.path)) allowed.set(p.path, !(await s.reader.check(p.path)));
    if (allowed.get(p.path)) kept.push(p);
  }
  const rank = (sev: string) => (/error/i.test(sev) ? 0 : /warn/i.test(sev) ? 1 : 2);
  kept.sort((a, b) => rank(a.severity) - rank(b.severity) || a.path.localeCompare(b.path) || a.line - b.line);
  const lines = kept.map(
    (p) =>
      `${p.path}:${p.line} ${p.severity.toLowerCase()}${p.source ? ` (${p.source})` : ''}: ${p.message.replace(/\s+/g, ' ').slice(0, 500)}`,
  );
  const attrs: Record<string, string> = { ...(m.path ? { path: s.reader.display(m.path) } : { scope: 'workspace' }) };
  attrs.count = String(lines.length);
  return {
    mention: m,
    attrs,
    body: lines.length ? lines.join('\n') : 'No problems reported.',
    cut: (max) => {
      const head = headLines(lines.join('\n'), max);
      return {
        body: `${head.text}\n[Cut to fit the context budget: ${head.lines} of ${lines.length} problems shown (errors first). Ask the user, or read the files named, for the rest.]`,
      };
    },
  };
}

async function gatherTerminal(m: Extract<Mention, { kind: 'terminal' }>, s: MentionSources): Promise<Raw | string> {
  const runs = (await s.terminal?.()) ?? [];
  const text = runs
    .map(
      (r) =>
        `$ ${r.command}\n${r.output.replace(/\s+$/, '')}${r.exitCode === undefined ? '' : `\n[exit code ${r.exitCode ?? 'none (killed)'}]`}`,
    )
    .join('\n\n');
  return {
    mention: m,
    attrs: { commands: String(runs.length) },
    body: text || "Forge's terminal has no output yet: no command has run in this task.",
    cut: (max) => {
      // The end of the output matters most (the error, the summary line).
      const tail = text.slice(Math.max(0, text.length - max));
      const from = tail.indexOf('\n');
      const kept = from >= 0 && from < 200 ? tail.slice(from + 1) : tail;
      return {
        body: `[Cut to fit the context budget: the last ${kept.length} of ${text.length} characters shown. Run the command again with execute_command for the full output.]\n${kept}`,
      };
    },
  };
}

async function gatherGit(
  m: Extract<Mention, { kind: 'git' }>,
  s: MentionSources,
  budgetChars: number,
): Promise<Raw | string> {
  const got = await s.git?.(Math.max(budgetChars * 2, 64_000));
  if (!got) return '@Git changes cannot be attached: git is not available here.';
  if ('none' in got) return { mention: m, attrs: {}, body: got.none, cut: (max) => ({ body: got.none.slice(0, max) }) };
  const { text, dropped } = await withoutHiddenFiles(got.diff, s.reader);
  const notes = dropped.length
    ? `\n[Changes to ${plural(dropped.length, 'file')} not shown: secrets or .forgeignore.]`
    : '';
  const body = (text.trim() || 'The working tree has no changes.') + notes;
  const files = (text.match(/^diff --git /gm) ?? []).length;
  return {
    mention: m,
    attrs: { files: String(files) },
    body,
    cut: (max) => {
      const head = headLines(text, max);
      const shownFiles = (head.text.match(/^diff --git /gm) ?? []).length;
      return {
        body: `${head.text}\n[Cut to fit the context budget: ${head.lines} of ${text.split('\n').length} diff lines shown (${shownFiles} of ${files} files started). See one file's changes with execute_command "git diff -- <path>".]${notes}`,
      };
    },
  };
}

/** Drops the sections of a unified diff whose file is a secret or excluded by .forgeignore. */
export async function withoutHiddenFiles(
  diff: string,
  reader: Pick<ConfinedReader, 'check'>,
): Promise<{ text: string; dropped: string[] }> {
  const out: string[] = [];
  const dropped: string[] = [];
  let skipping = false;
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (header) {
      const paths = [...new Set([header[1], header[2]])];
      const refusals = await Promise.all(paths.map((p) => reader.check(p)));
      skipping = refusals.some((r) => r && (r.code === 'secret' || r.code === 'ignored' || r.code === 'git-internal'));
      if (skipping) dropped.push(header[2]);
    }
    if (!skipping) out.push(line);
  }
  return { text: out.join('\n'), dropped };
}
