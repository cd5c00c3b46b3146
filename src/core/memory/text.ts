// Text helpers shared by ranking and duplicate detection. Deliberately small and dependency-free:
// memories are short sentences, so a light stemmer and a stopword list are enough.

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my not of on or our should so than that the their them then there these they this those to too us ' +
    'use used using was we were what when where which while who why will with would you your please'
  ).split(' '),
);

/** Very light suffix stripping so "tests"/"testing"/"tested" meet "test". Not linguistics, just recall. */
function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  const rules: [RegExp, string][] = [
    [/ies$/, 'y'],
    [/(ss)$/, '$1'],
    [/(ch|sh|x|z)es$/, '$1'],
    [/ing$/, ''],
    [/ed$/, ''],
    [/s$/, ''],
  ];
  for (const [re, rep] of rules) {
    if (re.test(word)) {
      const out = word.replace(re, rep);
      return out.length >= 3 ? out : word;
    }
  }
  return word;
}

/** Lowercased, stemmed content words. Identifiers like `package.json` split on punctuation. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
    if (!raw || STOPWORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** Canonical form used to spot exact duplicates regardless of case, spacing and punctuation. */
export function normalizeContent(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Jaccard similarity of the content-word sets (0..1). */
export function lexicalSimilarity(a: string, b: string): number {
  const sa = new Set(tokenize(a));
  const sb = new Set(tokenize(b));
  if (sa.size === 0 && sb.size === 0) return normalizeContent(a) === normalizeContent(b) ? 1 : 0;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** The estimate the memory budget uses everywhere: ~4 characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
