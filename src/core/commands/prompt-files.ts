// Custom slash commands: prompt files in `.forge/commands/*.md` of each workspace folder (one folder level
// below becomes a namespace: `.forge/commands/git/pr.md` is `/git:pr`). Read through the WorkspaceFs port.
// Symlinks are not followed: a cloned repository must not turn `/cmd` into a way to send ~/.ssh to the model.
import type { WorkspaceFs } from '../workspace/types';
import { COMMAND_NAME, expandTemplate, parsePromptFile, type ParsedArgs, type SlashCommandInfo, type SlashCommandSource } from './slash';

export const COMMANDS_DIR = '.forge/commands';
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

  constructor(private readonly fs: WorkspaceFs, private readonly log: (m: string) => void = () => undefined) {}

  private async find(signal?: AbortSignal): Promise<Found[]> {
    const found: Found[] = [];
    const seen = new Set<string>();
    const add = (name: string, path: string) => {
      const n = name.toLowerCase();
      if (!COMMAND_NAME.test(n) || seen.has(n) || found.length >= MAX_COMMANDS) return;
      seen.add(n);
      found.push({ name: n, path });
    };
    for (const root of this.fs.roots()) {
      const dir = join(root, COMMANDS_DIR);
      const entries = await this.readDir(dir, signal);
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (e.type === 'file' && e.name.endsWith('.md')) add(e.name.slice(0, -3), join(dir, e.name));
        else if (e.type === 'dir' && !e.name.startsWith('.')) {
          const sub = await this.readDir(join(dir, e.name), signal);
          for (const f of sub.sort((a, b) => a.name.localeCompare(b.name))) {
            if (f.type === 'file' && f.name.endsWith('.md')) add(`${e.name}:${f.name.slice(0, -3)}`, join(join(dir, e.name), f.name));
          }
        }
      }
    }
    return found;
  }

  private async readDir(dir: string, signal?: AbortSignal) {
    try {
      return await this.fs.readDir(dir, signal);
    } catch {
      return []; // no commands folder: no custom commands
    }
  }

  private async read(path: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      const st = await this.fs.stat(path);
      if (!st || st.type !== 'file') return undefined;
      if (st.size > MAX_FILE_BYTES) {
        this.log(`slash commands: ${path} is larger than ${MAX_FILE_BYTES} bytes; skipped`);
        return undefined;
      }
      return new TextDecoder().decode(await this.fs.readFile(path, signal));
    } catch (err) {
      this.log(`slash commands: could not read ${path}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  async list(signal?: AbortSignal): Promise<SlashCommandInfo[]> {
    const out: SlashCommandInfo[] = [];
    for (const f of await this.find(signal)) {
      const text = await this.read(f.path, signal);
      if (text === undefined) continue;
      const p = parsePromptFile(text);
      const firstLine = p.body.split(/\r?\n/).find((l) => l.trim())?.trim() ?? '';
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
