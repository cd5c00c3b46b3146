// zod <-> model glue: JSON Schema for the model, readable issue text for validation failures.
import * as z from 'zod';

/** Converted schemas: every step lists the tools, and the conversion costs a few ms a tool set (measured in a profile). */
const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

/** JSON Schema (draft 2020-12, input side) of a tool's zod input, without the `$schema` marker. A copy each call. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete json.$schema;
    converted.set(schema, json);
  }
  return structuredClone(json);
}

/** One line per zod issue: `- <path>: <message>` so the model can see exactly which field to fix. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
      return `- ${path}: ${issue.message}`;
    })
    .join('\n');
}
