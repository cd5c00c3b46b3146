// The tool registry: one place that knows every tool, produces the model's ToolSpecs and validates arguments.
import type { ToolSpec } from '../model/types';
import { formatZodIssues, toJsonSchema } from './schema';
import type { Tool, ToolResult } from './types';

type ValidationOutcome =
  | { ok: true; tool: Tool; input: unknown }
  | { ok: false; tool?: Tool; result: ToolResult; reason: 'unknown_tool' | 'invalid_args' };

function toolSpec(tool: Tool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputJsonSchema ?? toJsonSchema(tool.input),
  };
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specCache = new Map<string, ToolSpec>();
  /** Tool names each dynamic source (ToolSource id) registered. */
  private readonly sourced = new Map<string, string[]>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Registers a tool; a duplicate name is a wiring bug, so it throws. */
  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered`);
    this.tools.set(tool.name, tool);
  }

  /**
   * Replaces the tools a dynamic source registered with `tools` (a tool whose name is already taken by another
   * source or a built-in is skipped and returned). Sorted by name so the model's tool list stays stable.
   */
  setSourceTools(sourceId: string, tools: readonly Tool[]): Tool[] {
    for (const name of this.sourced.get(sourceId) ?? []) {
      this.tools.delete(name);
      this.specCache.delete(name);
    }
    const added: string[] = [];
    const skipped: Tool[] = [];
    for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (this.tools.has(tool.name)) {
        skipped.push(tool);
        continue;
      }
      this.tools.set(tool.name, tool);
      added.push(tool.name);
    }
    this.sourced.set(sourceId, added);
    return skipped;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** ToolSpecs for the model (cached: JSON Schema generation is not free and specs must be stable for caching). */
  specs(filter: (tool: Tool) => boolean = () => true): ToolSpec[] {
    return this.list()
      .filter(filter)
      .map((tool) => {
        let spec = this.specCache.get(tool.name);
        if (!spec) {
          spec = toolSpec(tool);
          this.specCache.set(tool.name, spec);
        }
        return spec;
      });
  }

  /**
   * Looks the tool up and validates `args` against its zod schema. Failures become error results the
   * model can act on: the list of available tools, or the exact zod issues (path + message).
   */
  validate(name: string, args: unknown, available: readonly string[] = this.names()): ValidationOutcome {
    const tool = this.tools.get(name);
    if (!tool) {
      return {
        ok: false,
        reason: 'unknown_tool',
        result: {
          isError: true,
          content: `Unknown tool "${name}". Available tools: ${available.join(', ')}.`,
        },
      };
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        tool,
        reason: 'invalid_args',
        result: {
          isError: true,
          content:
            `Invalid arguments for tool "${name}":\n${formatZodIssues(parsed.error)}\n` +
            `Fix the arguments to match the tool's input schema and call it again.`,
        },
      };
    }
    return { ok: true, tool, input: parsed.data };
  }
}
