// The protocol's size limits and the field types every schema is built from (ids, labels, capped texts).
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';

export const LIMITS = {
  /** A user chat message. */
  userText: 100_000,
  id: 256,
  path: 4_096,
  rejectReason: 2_000,
  /** Host-side strings: assistant text, thinking, tool args (the transcript caps tool output well below). */
  itemText: 2_000_000,
  preview: 50_000,
  label: 1_000,
  items: 200_000,
  opsPerPatch: 20_000,
  history: 5_000,
  models: 500,
} as const;

/** Printable ASCII without spaces: request ids, tool call ids, task ids. */
export const Id = z
  .string()
  .min(1)
  .max(LIMITS.id)
  .regex(/^[\x21-\x7e]+$/, 'id must be printable ASCII without spaces');
export const Label = z.string().max(LIMITS.label);
export const Text = z.string().max(LIMITS.itemText);
export const Preview = z.string().max(LIMITS.preview);
export const Count = z.number().int().nonnegative();
export const Ms = z.number().nonnegative();
