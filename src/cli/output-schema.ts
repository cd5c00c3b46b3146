// --output-schema: the caller's JSON Schema for the final result. The model is asked for JSON that fits it
// (task_completion's result), and the result is validated with Ajv before the run counts as done; a result that
// does not parse or does not fit ends with exit 7 and an `output_invalid` event naming each problem.
import { promises as fsp } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

export interface OutputSchema {
  /** Added to the task text: what the final result must be. */
  instruction: string;
  check(result: string): { ok: true; value: unknown } | { ok: false; errors: string[] };
}

/** Reads and compiles the schema; throws a plain message for a missing file, bad JSON or an invalid schema. */
export async function loadOutputSchema(file: string): Promise<OutputSchema> {
  const text = await fsp.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new Error(`--output-schema ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  });
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw new Error(`--output-schema ${file}: not JSON (${(e as Error).message})`, { cause: e });
  }
  if (!schema || typeof schema !== 'object') throw new Error(`--output-schema ${file}: a schema is a JSON object`);
  let validate: ValidateFunction;
  try {
    validate = new Ajv({ allErrors: true, strict: false }).compile(schema as object);
  } catch (e) {
    throw new Error(`--output-schema ${file}: not a valid JSON Schema (${(e as Error).message})`, {
      cause: e,
    });
  }
  return {
    instruction:
      'When you finish, call task_completion with `result` set to ONLY a JSON value (no prose, no code fence) that ' +
      `is valid against this JSON Schema:\n${JSON.stringify(schema, null, 2).slice(0, 20_000)}`,
    check(result) {
      let value: unknown;
      try {
        value = JSON.parse(stripFence(result));
      } catch (e) {
        return { ok: false, errors: [`the result is not JSON: ${(e as Error).message}`] };
      }
      if (validate(value)) return { ok: true, value };
      return { ok: false, errors: (validate.errors ?? []).slice(0, 20).map(describe) };
    },
  };
}

/** Models often wrap JSON in a ```json fence despite being asked not to: accept exactly one. */
function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return (m ? m[1] : text).trim();
}

function describe(e: ErrorObject): string {
  return `${e.instancePath || '(root)'} ${e.message ?? 'is not valid'}`;
}
