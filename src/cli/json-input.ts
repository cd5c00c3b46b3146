// --input-format json: the task and each next user message as JSON Lines on stdin, for programs that drive a
// conversation. A line is {"type":"user","text":"..."}; {"type":"user","message":{"role":"user","content":"..."}}
// and {"role":"user","content":"..."} are read too. Blank lines are skipped; anything else is an InputError.
import * as readline from 'node:readline';

/** Bad input from the caller (a line that is not a user message, an unknown /command): exit 64. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/** The text of one JSON line's user message. */
export function userText(line: string, n: number): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new InputError(`stdin line ${n}: not JSON (${(e as Error).message})`);
  }
  const o = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const message = (o.message && typeof o.message === 'object' ? o.message : o) as Record<string, unknown>;
  const role = o.type ?? message.role;
  const text = typeof o.text === 'string' ? o.text : typeof message.content === 'string' ? message.content : undefined;
  if ((role !== undefined && role !== 'user') || text === undefined || !text.trim())
    throw new InputError(`stdin line ${n}: expected {"type":"user","text":"..."}`);
  return text.trim();
}

/** The user messages on a stream, one per non-blank line, as they arrive. */
export async function* jsonInputs(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity, terminal: false });
  let n = 0;
  try {
    for await (const line of rl) {
      n++;
      if (line.trim()) yield userText(line, n);
    }
  } finally {
    rl.close();
  }
}
