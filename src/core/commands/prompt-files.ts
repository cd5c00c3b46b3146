// Custom slash commands: prompt files in `.forge/commands/*.md` of each workspace folder (one folder level
// below becomes a namespace: `.forge/commands/git/pr.md` is `/git:pr`). Read through the ConfinedReader, the
// read_file rule: a cloned repository must not turn `/cmd` into a way to send ~/.ssh to the model, so a file or
// folder linking out of the workspace, a secret, a FIFO or a binary is skipped (and named in the log).
import { ConfinedReader, isWorthWarning, type ConfinedEntry, type ConfinedRefusal } from '../safety/confined-read';
import type { WorkspaceFs } from '../workspace/types';
import {
  COMMAND_NAME,
  expandTemplate,
  parsePromptFile,
  type ParsedArgs,
  type SlashCommandInfo,
  type SlashCommandSource,
} from './slash';

const COMMANDS_DIR = '.forge/commands';
/** A prompt file larger than this is skipped (it is a prompt, not a document). */
const MAX_FILE_BYTES = 64 * 1024;
const MAX_COMMANDS = 200;

interface Found {
  name: string;
  path: string;
}

const join = (a: string, b: string) => `${a.replace(/[\\/]+$/, '')}/${b}`;

export class PromptFileCommands implements SlashCommandSource {
  readonly id = 'custom';
  private readonly reader: ConfinedReader;
  /** Problems already logged (the list is read again on every change; one warning per problem is enough). */
  private readonly warned = new Set<string>();

  constructor(
    fs: WorkspaceFs | ConfinedReader,
    private readonly log: (m: string) => void = () => undefined,
  ) {
    this.reader = fs instanceof ConfinedReader ? fs : new ConfinedReader(fs);
  }

  private warn(r: ConfinedRefusal): void {
    if (!isWorthWarning(r) || this.warned.has(r.message)) return;
    if (this.warned.size > 500) this.warned.clear();
    this.warned.add(r.message);
    this.log(`slash commands: skipped ${r.message}`);
  }

  private async find(signal?: AbortSignal): Promise<Found[]> {
    const found: Found[] = [];
    const seen = new Set<string>();
    const add = (name: string, path: string) => {
      const n = name.toLowerCase();
      if (!COMMAND_NAME.test(n) || seen.has(n) || found.length >= MAX_COMMANDS) return;
      seen.add(n);
      found.push({ name: n, path });
    };
    const isPrompt = (e: ConfinedEntry) => e.type !== 'dir' && e.name.endsWith('.md');
    for (const root of this.reader.fs.roots()) {
      const entries = await this.readDir(join(root, COMMANDS_DIR), signal);
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (isPrompt(e)) add(e.name.slice(0, -3), e.abs);
        else if (e.type === 'dir' && !e.name.startsWith('.')) {
          const sub = await this.readDir(e.abs, signal);
          for (const f of sub.sort((a, b) => a.name.localeCompare(b.name))) {
            if (isPrompt(f)) add(`${e.name}:${f.name.slice(0, -3)}`, f.abs);
          }
        }
      }
    }
    return found;
  }

  private async readDir(dir: string, signal?: AbortSignal): Promise<ConfinedEntry[]> {
    const listing = await this.reader.listDir(dir, signal);
    if (!listing.ok) {
      if (listing.code !== 'not-a-file') this.warn(listing); // no commands folder: no custom commands
      return [];
    }
    for (const r of listing.refused) this.warn(r);
    return listing.entries;
  }

  private async read(path: string, signal?: AbortSignal): Promise<string | undefined> {
    const r = await this.reader.readText(path, { maxBytes: MAX_FILE_BYTES, signal });
    if (r.ok) return r.text;
    this.warn(r);
    return undefined;
  }

  async list(signal?: AbortSignal): Promise<SlashCommandInfo[]> {
    const out: SlashCommandInfo[] = [];
    for (const f of await this.find(signal)) {
      const text = await this.read(f.path, signal);
      if (text === undefined) continue;
      const p = parsePromptFile(text);
      const firstLine =
        p.body
          .split(/\r?\n/)
          .find((l) => l.trim())
          ?.trim() ?? '';
      out.push({
        name: f.name,
        description: p.description ?? (firstLine.length > 80 ? `${firstLine.slice(0, 77)}...` : firstLine),
        ...(p.argumentHint ? { argumentHint: p.argumentHint } : {}),
        source: 'custom',
      });
    }
    return out;
  }

  async expand(name: string, args: ParsedArgs, signal?: AbortSignal): Promise<string | undefined> {
    const f = (await this.find(signal)).find((x) => x.name === name.toLowerCase());
    if (!f) return undefined;
    const text = await this.read(f.path, signal);
    if (text === undefined) return undefined;
    return expandTemplate(parsePromptFile(text).body, args);
  }
}
