// YAML frontmatter of the Markdown files teams keep for their agents (SKILL.md, *.agent.md, .claude/agents/*.md):
// a `---` fence at the very start, YAML up to the closing fence, the body after it. Parsed with the yaml package's
// core schema (no custom tags, no code); a file whose frontmatter is not a YAML mapping is a problem with a reason.
import { parse as parseYaml } from 'yaml';
import { errorText } from '../error-text';

export type Frontmatter = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; reason: string };

const FENCE = /^---[ \t]*\r?\n/;
/** Frontmatter is a header, not a document: past this it is refused rather than parsed. */
const MAX_FRONTMATTER_CHARS = 16_000;

export function parseFrontmatter(text: string): Frontmatter {
  const src = text.replace(/^\ufeff/, '');
  const open = FENCE.exec(src);
  if (!open) return { ok: true, data: {}, body: src };
  const rest = src.slice(open[0].length);
  const close = /^---[ \t]*$/m.exec(rest);
  if (!close) return { ok: false, reason: 'its frontmatter has no closing --- line' };
  const yamlText = rest.slice(0, close.index);
  if (yamlText.length > MAX_FRONTMATTER_CHARS)
    return { ok: false, reason: `its frontmatter is over ${MAX_FRONTMATTER_CHARS} characters` };
  let data: unknown;
  try {
    data = parseYaml(yamlText, { schema: 'core', maxAliasCount: 10, uniqueKeys: false }) ?? {};
  } catch (err) {
    const first = errorText(err).split('\n')[0];
    return { ok: false, reason: `its frontmatter is not valid YAML (${first})` };
  }
  if (typeof data !== 'object' || Array.isArray(data))
    return { ok: false, reason: 'its frontmatter is not a list of key: value pairs' };
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  return { ok: true, data: data as Record<string, unknown>, body };
}

/** A string value; numbers and booleans as written (YAML reads `name: 2024` as a number). */
export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key];
  if (typeof v === 'string') return v.trim() || undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** Claude Code's booleans: true/false/yes/no/on/off/1/0 (YAML's core schema reads only true/false). */
export function boolField(data: Record<string, unknown>, key: string): boolean | undefined {
  const v = data[key];
  if (typeof v === 'boolean') return v;
  const s = String(v ?? '')
    .trim()
    .toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(s)) return true;
  if (['false', 'no', 'off', '0'].includes(s)) return false;
  return undefined;
}

/**
 * A list key (`tools`, `allowed-tools`): a YAML list, or one string separated by commas or spaces. Spaces inside
 * parentheses belong to the entry (`Bash(git log *) Read` is two entries). undefined when the key is absent.
 */
export function listField(data: Record<string, unknown>, key: string): string[] | undefined {
  const v = data[key];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v))
    return v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
  if (typeof v !== 'string') return [];
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (const ch of v) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The first paragraph of a Markdown body (headings skipped): a description when the frontmatter has none. */
export function firstParagraph(body: string): string | undefined {
  for (const block of body.split(/\r?\n\s*\r?\n/)) {
    const text = block
      .split(/\r?\n/)
      .filter((l) => !/^\s*#/.test(l))
      .join(' ')
      .trim();
    if (text) return text;
  }
  return undefined;
}
