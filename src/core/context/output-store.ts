// Tool output capping: the model sees head + tail and a ref; the full text stays in an OutputStore for paging.
import * as z from 'zod';
import type { Tool } from '../tools/types';

export interface OutputStore {
  /** Keeps the full text; returns a ref the model can page with read_output. */
  put(text: string, meta: { toolName: string; toolCallId: string }): Promise<string>;
  get(ref: string): Promise<string | undefined>;
}

export class InMemoryOutputStore implements OutputStore {
  private readonly outputs = new Map<string, string>();
  private next = 1;

  constructor(private readonly maxEntries = 200) {}

  async put(text: string): Promise<string> {
    const ref = `out-${this.next++}`;
    this.outputs.set(ref, text);
    // Oldest first out: a long task must not keep every big output forever.
    while (this.outputs.size > this.maxEntries) this.outputs.delete(this.outputs.keys().next().value as string);
    return ref;
  }

  async get(ref: string): Promise<string | undefined> {
    return this.outputs.get(ref);
  }
}

interface CappedOutput {
  content: string;
  ref?: string;
}

/** Caps `text` at `cap` chars: 60% head, 40% tail, a note in between naming the ref and how to page. */
export async function capToolOutput(
  text: string,
  cap: number,
  store: OutputStore,
  meta: { toolName: string; toolCallId: string },
): Promise<CappedOutput> {
  if (text.length <= cap) return { content: text };
  const ref = await store.put(text, meta);
  const headLen = Math.floor(cap * 0.6);
  const tailLen = cap - headLen;
  const omitted = text.length - headLen - tailLen;
  const note =
    `\n\n[... output truncated: ${omitted} of ${text.length} chars omitted (showing the first ${headLen} and last ${tailLen}). ` +
    `Full output ref "${ref}": call read_output {"ref": "${ref}", "offset": ${headLen}, "limit": ${Math.min(cap, omitted)}} to page it ...]\n\n`;
  return { content: text.slice(0, headLen) + note + text.slice(text.length - tailLen), ref };
}

const readOutputInput = z.object({
  ref: z.string().min(1).describe('The ref from a truncated tool output, e.g. "out-3".'),
  offset: z.number().int().min(0).default(0).describe('Character offset to start from.'),
  limit: z.number().int().min(1).optional().describe('How many characters to return (capped).'),
});

/** Read-only tool to page a capped output. Its own answer is clamped to the cap, so it is never recapped. */
export function createReadOutputTool(store: OutputStore, cap: number): Tool<typeof readOutputInput> {
  return {
    name: 'read_output',
    description: 'Page through the full text of a truncated tool output by its ref (offset/limit in characters).',
    input: readOutputInput,
    risk: 'read',
    async execute(input) {
      const full = await store.get(input.ref);
      if (full === undefined) {
        return {
          isError: true,
          content: `No stored output with ref "${input.ref}" (outputs are kept for the current session only).`,
        };
      }
      const limit = Math.min(input.limit ?? cap, cap - 200);
      const start = Math.min(input.offset, full.length);
      const end = Math.min(full.length, start + limit);
      const more = end < full.length ? ` More remains: next offset ${end}.` : ' End of output.';
      return { content: `[${input.ref} chars ${start}-${end} of ${full.length}.${more}]\n${full.slice(start, end)}` };
    },
  };
}
