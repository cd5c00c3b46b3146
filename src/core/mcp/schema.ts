// MCP tool input schemas. The model gets the server's JSON Schema as is (normalised to an object schema); the
// arguments are checked against that same schema with ajv (the validator the MCP SDK itself uses), wrapped in a
// zod schema so the registry reports failures like any other tool's (path + message per issue). Converting the
// JSON Schema to zod instead would be lossy ($ref, oneOf, patterns, formats) and the model would see a
// re-generated schema that differs from the server's.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import * as z from 'zod';
import { cleanLine, cleanUntrusted } from './untrusted';

/** Schemas larger than this (as JSON) are not compiled: a server cannot make Forge spend long compiling. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
const MAX_DEPTH = 32;

type AjvClass = typeof import('ajv').Ajv;
/** The module name is a variable so bundlers leave it out: the host supplies ajv (see useSchemaCompiler). */
const AJV_MODULE = 'ajv';
// eslint-disable-next-line @typescript-eslint/no-require-imports
let loadAjv: () => AjvClass = () => (require(AJV_MODULE) as typeof import('ajv')).Ajv;
let ajv: Ajv | undefined;

/** Where ajv comes from (the bundled extension loads it with the MCP SDK, at the first server start). */
export function useSchemaCompiler(load: () => AjvClass): void {
  loadAjv = load;
  ajv = undefined;
}

function validator(): Ajv {
  // strict: false — servers use keywords ajv does not know (examples, x-*); formats are not enforced.
  ajv ??= new (loadAjv())({ strict: false, allErrors: true, validateFormats: false, allowUnionTypes: true });
  return ajv;
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_DEPTH || value === null || typeof value !== 'object') return level;
  let max = level;
  for (const v of Object.values(value as Record<string, unknown>)) max = Math.max(max, depth(v, level + 1));
  return max;
}

export interface PreparedSchema {
  /** What the model gets (always `type: "object"` at the top). */
  json: Record<string, unknown>;
  /** The registry's validator. */
  zod: z.ZodType;
  /** Why the schema is checked loosely (too big, too deep, did not compile); undefined when fully checked. */
  problem?: string;
}

/** Schema texts the model reads (description, title) are third-party too: cleaned and capped, everywhere. */
function cleanTexts(value: unknown, level = 0): unknown {
  if (level > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => cleanTexts(v, level + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'description' && typeof v === 'string') out[k] = cleanUntrusted(v, 300);
    else if (k === 'title' && typeof v === 'string') out[k] = cleanLine(v);
    else out[k] = cleanTexts(v, level + 1);
  }
  return out;
}

/** The model-facing JSON Schema: an object schema without the `$schema` marker, its texts cleaned. */
export function normaliseInputSchema(schema: unknown): Record<string, unknown> {
  const s = schema && typeof schema === 'object' && !Array.isArray(schema) ? (cleanTexts(schema) as Record<string, unknown>) : {};
  delete s.$schema;
  if (s.type !== 'object') s.type = 'object';
  if (!s.properties || typeof s.properties !== 'object') s.properties = {};
  return s;
}

function issuePath(e: ErrorObject): (string | number)[] {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
    parts.push((e.params as { missingProperty: string }).missingProperty);
  }
  return parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function issueMessage(e: ErrorObject): string {
  if (e.keyword === 'required') return 'required property is missing';
  if (e.keyword === 'additionalProperties') return `unknown property "${(e.params as { additionalProperty?: string }).additionalProperty}"`;
  if (e.keyword === 'enum') return `${e.message}: ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`.slice(0, 300);
  return e.message ?? `fails "${e.keyword}"`;
}

/** Compiles `schema` once; arguments must be a JSON object and match it. */
export function prepareInputSchema(schema: unknown): PreparedSchema {
  const json = normaliseInputSchema(schema);
  const objectOnly = z.record(z.string(), z.unknown());
  let problem: string | undefined;
  let check: ValidateFunction | undefined;
  const size = JSON.stringify(json).length;
  if (size > MAX_SCHEMA_CHARS) {
    // The model never gets a schema this big (it would crowd the prompt): it sees a plain object schema.
    return { json: { type: 'object', properties: {}, additionalProperties: true }, zod: objectOnly, problem: `input schema too large (${size} chars)` };
  }
  else if (depth(json) > MAX_DEPTH) problem = 'input schema nested too deeply';
  else {
    try {
      check = validator().compile(json);
    } catch (err) {
      problem = `input schema does not compile: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300);
    }
  }
  if (!check) return { json, zod: objectOnly, problem };
  const compiled = check;
  const zod = objectOnly.superRefine((value, ctx) => {
    if (compiled(value)) return;
    for (const e of (compiled.errors ?? []).slice(0, 20)) ctx.addIssue({ code: 'custom', path: issuePath(e), message: issueMessage(e) });
  });
  return { json, zod };
}
