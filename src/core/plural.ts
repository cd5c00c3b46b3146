// A count with its noun, so no sentence says "file(s)": "1 file", "2 files". An ESLint rule keeps "(s)" out of src.
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** The noun alone, for a count said elsewhere in the sentence ("Blocks 2, 3 matched"). */
export function noun(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}
