// How a cost reads, the same in the panel, the status bar and the task history (the webview and the extension
// share only protocol/, so the one formatter lives here).

/**
 * A known cost. Callers show nothing for an unknown one (undefined = no price: tokens only); a free model's 0 is
 * "$0.00", and a tiny non-zero cost never rounds down to a zero-looking "$0.0000".
 */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return '$0.00';
  if (usd < 0.0001) return '<$0.0001';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** "1 file", "3 files": a count in words, for people (never "file(s)"). */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
