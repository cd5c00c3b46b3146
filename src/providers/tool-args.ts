// Parses streamed tool-call arguments into the tool_call_end fields, with a precise error for bad JSON.
import { errorText } from '../core/error-text';

export function parseToolArgs(raw: string): { args: unknown; rawArgs: string; parseError?: string } {
  if (raw.trim() === '') return { args: {}, rawArgs: raw };
  try {
    const args: unknown = JSON.parse(raw);
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return {
        args: undefined,
        rawArgs: raw,
        parseError: `tool arguments must be a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args === 'object' ? 'null' : typeof args}`,
      };
    }
    return { args, rawArgs: raw };
  } catch (err) {
    return { args: undefined, rawArgs: raw, parseError: describeJsonError(raw, err) };
  }
}

/** "invalid JSON in tool arguments: Unexpected end of JSON input (at char 31 of 31: ...`"recursive": tru`)" */
function describeJsonError(raw: string, err: unknown): string {
  const message = errorText(err);
  const m = /position (\d+)/.exec(message);
  const pos = m ? Number(m[1]) : raw.length;
  const near = raw.slice(Math.max(0, pos - 30), pos + 10).replace(/\s+/g, ' ');
  return `invalid JSON in tool arguments: ${message.replace(/ in JSON at position \d+.*$/s, '')} at char ${pos} of ${raw.length} (near \`${near}\`)`;
}
