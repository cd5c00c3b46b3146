// The task title shown in the history: derived from the first message, short enough for one line.

/**
 * A short title from the first message: its first sentence or line, without quoted code, greetings and
 * "please", cut at a word near 60 characters.
 */
export function titleOf(text: string): string {
  let t = text.replace(/```[\s\S]*?(```|$)/g, ' ').replace(/`([^`]*)`/g, '$1');
  t =
    t
      .split(/\n\s*\n|\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  t = t
    .replace(/^(hi|hello|hey)[,!.\s]+/i, '')
    .replace(/^(please|can you|could you|would you)\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  const sentence = /^(.{12,}?[.?!])(\s|$)/.exec(t);
  if (sentence) t = sentence[1]!.replace(/[.]$/, '');
  if (t.length > 60) {
    const cut = t.slice(0, 60);
    const space = cut.lastIndexOf(' ');
    t = `${(space > 30 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
  }
  t = t.charAt(0).toUpperCase() + t.slice(1);
  return t || 'New task';
}
