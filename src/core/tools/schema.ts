// zod <-> model glue: JSON Schema for the model, readable issue text for validation failures.
import * as z from 'zod';

/** JSON Schema (draft 2020-12, input side) of a tool's zod input, without the `$schema` marker. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
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
