// Slash commands typed in the chat input: parsing, the built-in list, prompt-file templates ($ARGUMENTS, $1..$9)
// and the registry that combines built-ins with pluggable sources (custom prompt files, later MCP prompts).
// Pure: no vscode, no Node. The host executes built-ins; sources expand their commands into a prompt.
import { MODE_NAMES, MODES } from '../modes';
import { errorText } from '../error-text';

export interface SlashCommandInfo {
  /** Without the slash, e.g. "mode" or "review-pr". */
  name: string;
  description: string;
  /** Shown after the name in the completion list, e.g. "<name>" or "[file] [focus]". */
  argumentHint?: string;
  /** Where it comes from: a built-in, a `.forge/commands/*.md` file, an MCP server prompt... */
  source: 'builtin' | 'custom' | 'mcp' | string;
  /** The values the (first) argument takes, offered by the completion list (e.g. the modes for /mode). */
  choices?: string[];
  /** What a choice is, shown beside it (each mode's description for /mode). */
  choiceDescriptions?: Record<string, string>;
}

/** A mode /mode offers besides the built-in ones (the team's custom agents). */
export interface ModeChoiceInfo {
  name: string;
  description?: string;
}

/**
 * Something that contributes slash commands that expand into a prompt for the model. The custom prompt files
 * are one source; MCP prompts (prompts/list, prompts/get) plug in the same way.
 */
export interface SlashCommandSource {
  readonly id: string;
  list(signal?: AbortSignal): Promise<SlashCommandInfo[]>;
  /** The prompt text for `/name args`, or undefined when this source does not (any longer) have the command. */
  expand(name: string, args: ParsedArgs, signal?: AbortSignal): Promise<string | undefined>;
}

type BuiltinCommand = 'stop' | 'new' | 'mode' | 'model' | 'compact' | 'context' | 'undo' | 'help';

const BUILTIN_COMMANDS: readonly (SlashCommandInfo & { name: BuiltinCommand })[] = [
  { name: 'stop', description: 'Stop the running task (also Escape in the input)', source: 'builtin' },
  { name: 'new', description: 'Start a new task', source: 'builtin' },
  {
    name: 'mode',
    description: 'Switch mode: agent, plan, implement, review, test, deploy',
    argumentHint: '<mode>',
    source: 'builtin',
    choices: [...MODE_NAMES],
  },
  { name: 'model', description: 'Choose the model', source: 'builtin' },
  { name: 'compact', description: 'Summarise the conversation now to free context', source: 'builtin' },
  { name: 'context', description: "What fills the model's window now, and how close compaction is", source: 'builtin' },
  { name: 'undo', description: "Undo this task's file changes", source: 'builtin' },
  { name: 'help', description: 'List the commands', source: 'builtin' },
];

const BUILTIN_NAMES = new Set<string>(BUILTIN_COMMANDS.map((c) => c.name));

function isBuiltin(name: string): name is BuiltinCommand {
  return BUILTIN_NAMES.has(name);
}

export interface ParsedArgs {
  /** Everything after the command name, trimmed. */
  raw: string;
  /** Whitespace-separated words; "double" or 'single' quotes group words. */
  argv: string[];
}

interface ParsedSlash {
  name: string;
  args: ParsedArgs;
}

/** Command names: a letter, then letters, digits, `-`, `_`, `.` and `:` (namespaces such as `mcp:server:prompt`). */
export const COMMAND_NAME = /^[A-Za-z][\w.:-]{0,63}$/;

/**
 * `/name args` -> the command, or undefined when the text is not a command (no leading slash, a path such as
 * "/usr/bin/x fails", or "// comment"). Leading whitespace is allowed.
 */
export function parseSlash(text: string): ParsedSlash | undefined {
  const m = /^\s*\/([A-Za-z][\w.:-]{0,63})(?=\s|$)([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const raw = m[2].trim();
  return { name: m[1].toLowerCase(), args: { raw, argv: splitArgs(raw) } };
}

/** Splits on whitespace; quotes group words and are removed; a backslash escapes the next character inside quotes. */
export function splitArgs(raw: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quote) {
      if (ch === '\\' && i + 1 < raw.length && (raw[i + 1] === quote || raw[i + 1] === '\\')) cur += raw[++i];
      else if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/**
 * Fills a prompt template: `$ARGUMENTS` gets the raw arguments, `$1`..`$9` the words (empty when missing),
 * `$$` is a literal `$`. A template without any placeholder gets the arguments appended, so nothing the user
 * typed is dropped.
 */
export function expandTemplate(template: string, args: ParsedArgs): string {
  let used = false;
  const out = template.replace(/\$\$|\$ARGUMENTS\b|\$([1-9])(?!\d)/g, (m, digit: string | undefined) => {
    if (m === '$$') return '$';
    used = true;
    if (m === '$ARGUMENTS') return args.raw;
    return args.argv[Number(digit) - 1] ?? '';
  });
  if (!used && args.raw) return `${out.replace(/\s+$/, '')}\n\nArguments: ${args.raw}`;
  return out;
}

interface PromptFile {
  description?: string;
  argumentHint?: string;
  body: string;
}

/**
 * A prompt file: optional YAML-style frontmatter (`description:`, `argument-hint:`; simple `key: value`
 * lines, quotes optional) between `---` lines, then the prompt body.
 */
export function parsePromptFile(text: string): PromptFile {
  const src = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return { body: src.trim() };
  const meta: Record<string, string> = {};
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^\s*([A-Za-z][\w-]*)\s*:\s*(.*?)\s*$/.exec(line);
    if (!kv) continue;
    let v = kv[2];
    if (
      (v.startsWith('"') && v.endsWith('"') && v.length >= 2) ||
      (v.startsWith("'") && v.endsWith("'") && v.length >= 2)
    )
      v = v.slice(1, -1);
    meta[kv[1].toLowerCase().replace(/_/g, '-')] = v;
  }
  const hint = meta['argument-hint'] ?? meta['argumenthint'] ?? meta['args'];
  return {
    ...(meta.description ? { description: meta.description.slice(0, 300) } : {}),
    ...(hint ? { argumentHint: hint.slice(0, 100) } : {}),
    body: src.slice(m[0].length).trim(),
  };
}

/** The commands that match what is typed after the slash: prefix matches first, then substring matches. */
export function completeSlash(typed: string, commands: readonly SlashCommandInfo[], max = 50): SlashCommandInfo[] {
  const q = typed.toLowerCase();
  const prefix: SlashCommandInfo[] = [];
  const inner: SlashCommandInfo[] = [];
  for (const c of commands) {
    const n = c.name.toLowerCase();
    if (n.startsWith(q)) prefix.push(c);
    else if (q && n.includes(q)) inner.push(c);
  }
  return [...prefix, ...inner].slice(0, max);
}

/** Levenshtein distance, for "did you mean". Small inputs only (command names). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function suggestCommand(name: string, commands: readonly SlashCommandInfo[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of commands) {
    const d = c.name.startsWith(name) ? 0 : distance(name, c.name);
    if (d <= Math.max(1, Math.floor(c.name.length / 3)) && (!best || d < best.d)) best = { name: c.name, d };
  }
  return best?.name;
}

type SlashResolution =
  | { kind: 'builtin'; name: BuiltinCommand; args: ParsedArgs }
  | { kind: 'prompt'; name: string; source: string; prompt: string; args: ParsedArgs }
  | { kind: 'unknown'; name: string; message: string };

/** Built-ins plus the commands of every source. A built-in name always wins over a source's command. */
export class SlashCommandRegistry {
  private readonly sources: SlashCommandSource[] = [];
  private customModes: () => readonly ModeChoiceInfo[] = () => [];

  constructor(
    sources: readonly SlashCommandSource[] = [],
    private readonly log: (m: string) => void = () => undefined,
  ) {
    this.sources.push(...sources);
  }

  /** The custom agents /mode completes besides the built-in modes (read on every list()). */
  useModes(modes: () => readonly ModeChoiceInfo[]): void {
    this.customModes = modes;
  }

  /** /mode with the custom agents among its choices, each mode with its description (built-ins too). */
  private withModes(c: SlashCommandInfo): SlashCommandInfo {
    if (c.name !== 'mode') return c;
    const extra = this.customModes().filter((m) => !MODE_NAMES.includes(m.name as never) && /^\S{1,64}$/.test(m.name));
    const modes = [...MODE_NAMES.map((n) => MODES[n]), ...extra].slice(0, 50);
    const descriptions: Record<string, string> = {};
    for (const m of modes) if (m.description) descriptions[m.name] = m.description.slice(0, 200);
    return { ...c, choices: modes.map((m) => m.name), choiceDescriptions: descriptions };
  }

  /** Adds a source (e.g. the MCP prompts once the MCP client is up); returns the remover. */
  addSource(source: SlashCommandSource): () => void {
    this.sources.push(source);
    return () => {
      const i = this.sources.indexOf(source);
      if (i >= 0) this.sources.splice(i, 1);
    };
  }

  /** Every command, built-ins first; a failing source is logged and left out. Names are unique (first wins). */
  async list(signal?: AbortSignal): Promise<SlashCommandInfo[]> {
    const out: SlashCommandInfo[] = BUILTIN_COMMANDS.map((c) => this.withModes(c));
    const seen = new Set(out.map((c) => c.name));
    for (const s of this.sources) {
      let items: SlashCommandInfo[] = [];
      try {
        items = await s.list(signal);
      } catch (err) {
        this.log(`slash commands: source ${s.id} failed to list: ${errorText(err)}`);
      }
      for (const c of items) {
        const name = c.name.toLowerCase();
        if (!COMMAND_NAME.test(name) || seen.has(name)) continue;
        seen.add(name);
        out.push({ ...c, name });
      }
    }
    return out;
  }

  /** What `/name args` means; undefined when the text is not a slash command at all. */
  async resolve(text: string, signal?: AbortSignal): Promise<SlashResolution | undefined> {
    const parsed = parseSlash(text);
    if (!parsed) return undefined;
    const { name, args } = parsed;
    if (isBuiltin(name)) return { kind: 'builtin', name, args };
    for (const s of this.sources) {
      let prompt: string | undefined;
      try {
        prompt = await s.expand(name, args, signal);
      } catch (err) {
        return {
          kind: 'unknown',
          name,
          message: `/${name} failed: ${errorText(err)}`,
        };
      }
      if (prompt !== undefined) {
        if (!prompt.trim())
          return { kind: 'unknown', name, message: `/${name} expanded to an empty prompt; nothing was sent.` };
        return { kind: 'prompt', name, source: s.id, prompt, args };
      }
    }
    const hint = suggestCommand(name, await this.list(signal));
    return {
      kind: 'unknown',
      name,
      message: `Unknown command /${name}.${hint ? ` Did you mean /${hint}?` : ''} Type /help for the list; nothing was sent to the model.`,
    };
  }
}

/** The /help text (markdown). */
export function helpText(commands: readonly SlashCommandInfo[]): string {
  const line = (c: SlashCommandInfo) =>
    `- \`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}\` — ${c.description || '(no description)'}`;
  const builtins = commands.filter((c) => c.source === 'builtin');
  const others = commands.filter((c) => c.source !== 'builtin');
  const parts = ['Commands:', ...builtins.map(line)];
  if (others.length) parts.push('', 'Custom and server commands:', ...others.map(line));
  else
    parts.push(
      '',
      'Add your own: a prompt file in `.forge/commands/<name>.md` (frontmatter `description`, `argument-hint`; `$ARGUMENTS`, `$1`..`$9`).',
    );
  return parts.join('\n');
}
