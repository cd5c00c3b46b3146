// A thrown value as one line of text for a log, a notice or a tool result: every layer catches `unknown`.

/** The message of an Error, or the value itself as a string (a thrown string, number or object). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
