// zod schemas for the two untrusted inputs: lines of the memory file (hand-editable) and the model's learnings.
import * as z from 'zod';
import type { MemoryItem } from './port';

const memoryTypeSchema = z.enum(['procedural', 'semantic', 'episodic']);

/** A learning as the reflecting model must produce it. Strict: anything off is dropped, not repaired. */
export const learningDraftSchema = z.object({
  type: memoryTypeSchema,
  content: z.string().trim().min(3).max(600),
  context: z.string().trim().max(400).default(''),
  confidence: z.number().min(0).max(1),
  tags: z.array(z.string().trim().min(1).max(40)).max(12).default([]),
  /** 'global' = a cross-project lesson (e.g. about a tool or language), stored in the global store. */
  scope: z.enum(['workspace', 'global']).optional(),
});

export type LearningDraft = z.infer<typeof learningDraftSchema>;

/**
 * One line of memory.jsonl. Lenient where a human might leave a field out (id, dates, counters get defaults),
 * strict where a wrong value would mislead recall (type, content, confidence range). Unknown keys are kept.
 */
export const storedLineSchema = z.looseObject({
  id: z.string().trim().min(1).optional(),
  type: memoryTypeSchema,
  content: z.string().trim().min(1),
  context: z.string().default(''),
  tags: z.array(z.string()).default([]),
  confidence: z.number().min(0).max(1).default(0.5),
  scope: z.enum(['workspace', 'global']).optional(),
  createdAt: z.string().optional(),
  lastUsedAt: z.string().optional(),
  accessCount: z.number().int().min(0).default(0),
});

/** The order keys are written in, so diffs of the file stay small and readable. */
export const KEY_ORDER = [
  'id',
  'type',
  'content',
  'context',
  'tags',
  'confidence',
  'accessCount',
  'createdAt',
  'lastUsedAt',
] as const satisfies readonly (keyof MemoryItem)[];

export function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}
