// MCP tool input schemas. The model gets the server's JSON Schema as is (normalised to an object schema); the
// arguments are checked against that same schema with ajv (the validator the MCP SDK itself uses), wrapped in a
// zod schema so the registry reports failures like any other tool's (path + message per issue). Converting the
// JSON Schema to zod instead would be lossy ($ref, oneOf, patterns, formats) and the model would see a
// re-generated schema that differs from the server's.
//
// Regular expressions are the exception. A server's `pattern: "^(a+)+$"` run by JavaScript's backtracking engine
// on a long argument blocks the extension host for minutes, so no regular expression from a server is ever run
// here: `pattern` and `patternProperties` are taken out of the copy ajv compiles (the model still sees them, and
// the server checks its own arguments), and ajv's regular-expression engine is one that runs nothing. Checking
// here is for quick, precise feedback to the model, not the server's protection.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import * as z from 'zod';
import { cleanLine, cleanUntrusted } from './untrusted';
import { errorText } from '../error-text';

/** Schemas larger than this (as JSON) are not compiled: a server cannot make Forge spend long compiling. */
const MAX_SCHEMA_CHARS = 64 * 1024;
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

/**
 * ajv's regular-expression engine: one that runs nothing and matches everything. Only a regular expression the
 * schema walk below did not take out could reach it (one reached through a `$ref` into an unknown keyword).
 */
const noRegExp: { (pattern: string, flags: string): { test(s: string): boolean }; code: string } = Object.assign(
  () => ({ test: () => true }),
  { code: 'forgeNoRegExp' },
);

function validator(): Ajv {
  // strict: false — servers use keywords ajv does not know (examples, x-*); formats are not enforced.
  ajv ??= new (loadAjv())({
    strict: false,
    allErrors: true,
    validateFormats: false,
    allowUnionTypes: true,
    code: { regExp: noRegExp },
  });
  return ajv;
}

/** Keywords whose value is data, not a schema: kept as they are (a "pattern" key in a `const` is data). */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords whose value maps names to schemas (a property may be called "pattern"). */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The copy of a schema ajv compiles: no `pattern` (nor inside `propertyNames`), no `patternProperties`. Taking a
 * keyword out only lets more through, except where `patternProperties` decided which properties were
 * "additional": there `additionalProperties` goes too, and `unevaluatedProperties` anywhere in the schema.
 */
export function withoutRegexKeywords(schema: unknown): unknown {
  const anyPatternProperties = JSON.stringify(schema ?? null).includes('"patternProperties"');
  const walk = (v: unknown, level: number): unknown => {
    if (level > MAX_DEPTH * 2) return v; // deeper than prepareInputSchema compiles
    if (Array.isArray(v)) return v.map((x) => walk(x, level + 1));
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    const loosen = isObject(v.patternProperties);
    for (const [k, x] of Object.entries(v)) {
      if (k === 'pattern' && typeof x === 'string') continue;
      if (k === 'patternProperties' && isObject(x)) continue;
      if ((loosen && k === 'additionalProperties') || (anyPatternProperties && k === 'unevaluatedProperties')) continue;
      if (DATA_KEYWORDS.has(k)) out[k] = x;
      else if (SCHEMA_MAPS.has(k) && isObject(x))
        out[k] = Object.fromEntries(Object.entries(x).map(([name, sub]) => [name, walk(sub, level + 2)]));
      else out[k] = walk(x, level + 1);
    }
    return out;
  };
  return walk(schema, 0);
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_DEPTH || value === null || typeof value !== 'object') return level;
  let max = level;
  for (const v of Object.values(value as Record<string, unknown>)) max = Math.max(max, depth(v, level + 1));
  return max;
}

interface PreparedSchema {
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
function normaliseInputSchema(schema: unknown): Record<string, unknown> {
  const s =
    schema && typeof schema === 'object' && !Array.isArray(schema)
      ? (cleanTexts(schema) as Record<string, unknown>)
      : {};
  delete s.$schema;
  if (s.type !== 'object') s.type = 'object';
  if (!s.properties || typeof s.properties !== 'object') s.properties = {};
  return s;
}

function issuePath(e: ErrorObject): (string | number)[] {
  const parts = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
    parts.push((e.params as { missingProperty: string }).missingProperty);
  }
  return parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function issueMessage(e: ErrorObject): string {
  if (e.keyword === 'required') return 'required property is missing';
  if (e.keyword === 'additionalProperties')
    return `unknown property "${(e.params as { additionalProperty?: string }).additionalProperty}"`;
  if (e.keyword === 'enum')
    return `${e.message}: ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`.slice(0, 300);
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
    return {
      json: { type: 'object', properties: {}, additionalProperties: true },
      zod: objectOnly,
      problem: `input schema too large (${size} chars)`,
    };
  } else if (depth(json) > MAX_DEPTH) problem = 'input schema nested too deeply';
  else {
    try {
      check = validator().compile(withoutRegexKeywords(json) as Record<string, unknown>);
    } catch (err) {
      problem = `input schema does not compile: ${errorText(err)}`.slice(0, 300);
    }
  }
  if (!check) return { json, zod: objectOnly, problem };
  const compiled = check;
  const zod = objectOnly.superRefine((value, ctx) => {
    if (compiled(value)) return;
    for (const e of (compiled.errors ?? []).slice(0, 20))
      ctx.addIssue({ code: 'custom', path: issuePath(e), message: issueMessage(e) });
  });
  return { json, zod };
}

/** The result shape of the MCP SDK's jsonSchemaValidator (declared here: core does not import the SDK). */
type SchemaCheck<T> =
  { valid: true; data: T; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

/**
 * The MCP SDK client's validator of tool outputs (`structuredContent` against the tool's `outputSchema`), with the
 * same bounds as the input check: no regular expression of the server's is run, no format is checked, and a
 * schema too large or too deep (or that does not compile) lets everything through. The server controls both
 * the schema and the output, so the SDK's own validator would let it block the host at will.
 */
export const boundedSchemaValidator = {
  getValidator<T>(schema: unknown): (input: unknown) => SchemaCheck<T> {
    let check: ValidateFunction | undefined;
    const text = JSON.stringify(schema ?? {});
    if (text.length <= MAX_SCHEMA_CHARS && depth(schema) <= MAX_DEPTH) {
      try {
        check = validator().compile(withoutRegexKeywords(schema) as Record<string, unknown>);
      } catch {
        check = undefined;
      }
    }
    return (input) => {
      if (!check || check(input)) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: validator().errorsText(check.errors).slice(0, 500) };
    };
  },
};
