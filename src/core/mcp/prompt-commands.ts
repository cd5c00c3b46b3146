// MCP prompts as slash commands: `/mcp.<server>.<prompt> a b` fills the prompt's arguments in order (the last
// one takes the rest of the line), so a server's prompts complete and run like `.forge/commands` files.
import type { ParsedArgs, SlashCommandInfo, SlashCommandSource } from '../commands/slash';
import type { McpPromptInfo } from './prompts';

interface McpPromptPort {
  /** `runningOnly`: only servers already started (completion must not start servers; running a command may). */
  listPrompts(signal?: AbortSignal, opts?: { runningOnly?: boolean }): Promise<McpPromptInfo[]>;
  expandPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<string>;
}

/** Positional words to the prompt's named arguments; the last named argument takes the remaining words. */
export function promptArguments(prompt: Pick<McpPromptInfo, 'arguments'>, args: ParsedArgs): Record<string, string> {
  const names = prompt.arguments.map((a) => a.name);
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const value = i === names.length - 1 ? args.argv.slice(i).join(' ') : args.argv[i];
    if (value !== undefined && value !== '') out[name] = value;
  });
  return out;
}

export class McpPromptCommands implements SlashCommandSource {
  readonly id = 'mcp';
  private known = new Map<string, McpPromptInfo>();

  constructor(private readonly port: McpPromptPort) {}

  async list(
    signal?: AbortSignal,
    opts: { runningOnly?: boolean } = { runningOnly: true },
  ): Promise<SlashCommandInfo[]> {
    const prompts = await this.port.listPrompts(signal, opts);
    this.known = new Map(prompts.map((p) => [p.command, p]));
    return prompts.map((p) => ({
      name: p.command,
      description: (p.description ?? p.title ?? `MCP prompt from ${p.server}`).slice(0, 200),
      ...(p.arguments.length
        ? { argumentHint: p.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ') }
        : {}),
      source: 'mcp',
    }));
  }

  async expand(name: string, args: ParsedArgs, signal?: AbortSignal): Promise<string | undefined> {
    if (!this.known.has(name)) await this.list(signal, { runningOnly: false });
    const prompt = this.known.get(name);
    if (!prompt) return undefined;
    const values = promptArguments(prompt, args);
    const missing = prompt.arguments.filter((a) => a.required && !values[a.name]);
    if (missing.length) throw new Error(`/${name} needs ${missing.map((a) => `<${a.name}>`).join(' ')}`);
    return this.port.expandPrompt(prompt.server, prompt.name, values, signal);
  }
}
