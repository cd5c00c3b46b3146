// CONTRIBUTING.md's map of the code stays true: every folder under src/ and webview-ui/src/ has a row, and every
// row names a folder that exists. The convention: inside the section headed `## Map of the code` (up to the next
// `## ` heading), a row of a Markdown table whose first cell is one path in backticks ending in `/` names a folder,
// relative to the repository root: | `src/core/loop/` | what it holds | what it may import |
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const MAP_HEADING = '## Map of the code';
/** Folders whose every subfolder must be in the map (recursively). */
const COVERED = ['src', 'webview-ui/src'];

/** The folder paths the map names, in order, from CONTRIBUTING.md's text. */
export function mapFolders(markdown: string): string[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === MAP_HEADING);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .map((l) => /^\|\s*`([^`\s]+\/)`\s*\|/.exec(l)?.[1])
    .filter((p): p is string => !!p);
}

/** `dir` and every folder below it that holds a file somewhere beneath (an empty leftover folder is not code). */
export function foldersWithFiles(root: string, dir: string): string[] {
  const here = join(root, dir);
  const entries = readdirSync(here, { withFileTypes: true });
  const below = entries.filter((e) => e.isDirectory()).flatMap((e) => foldersWithFiles(root, `${dir}/${e.name}`));
  const hasFile = entries.some((e) => !e.isDirectory()) || below.length > 0;
  return hasFile ? [`${dir}/`, ...below] : below;
}

describe('CONTRIBUTING.md maps every source folder', () => {
  it('the parser reads only the map section, first cells in backticks ending in /', () => {
    const md = [
      '# Contributing',
      '| `src/outside/` | before the map | |',
      '## Map of the code',
      '| folder | holds | may import |',
      '|---|---|---|',
      '| `src/a/` | a | nothing |',
      '| `src/a/b/` | b | `src/a/` |',
      '| `src/file.ts` | a file, not a folder | |',
      'Text that mentions `src/c/` is not a row.',
      '## Commit messages',
      '| `src/after/` | after the map | |',
    ].join('\n');
    assert.deepEqual(mapFolders(md), ['src/a/', 'src/a/b/']);
    assert.deepEqual(mapFolders('# no map here\n| `src/a/` | x |'), []);
  });

  const file = join(ROOT, 'CONTRIBUTING.md');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const mapped = mapFolders(text);

  it('CONTRIBUTING.md has a map', () => {
    assert.ok(text, 'CONTRIBUTING.md is missing at the repository root');
    assert.ok(mapped.length > 0, `CONTRIBUTING.md has no "${MAP_HEADING}" section with folder rows`);
  });

  it('every folder under src/ and webview-ui/src/ has a row in the map', () => {
    const folders = COVERED.flatMap((d) => foldersWithFiles(ROOT, d));
    assert.ok(folders.length > 20, `scanned the source folders (${folders.length})`);
    const missing = folders.filter((f) => !mapped.includes(f));
    assert.deepEqual(
      missing,
      [],
      `folders missing from CONTRIBUTING.md's map (add a row for each):\n${missing.join('\n')}`,
    );
  });

  it('every folder the map names exists, once', () => {
    const gone = mapped.filter((f) => !(existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isDirectory()));
    assert.deepEqual(
      gone,
      [],
      `CONTRIBUTING.md's map names folders that do not exist (remove or rename them):\n${gone.join('\n')}`,
    );
    const twice = mapped.filter((f, i) => mapped.indexOf(f) !== i);
    assert.deepEqual(twice, [], `CONTRIBUTING.md's map names these folders more than once:\n${twice.join('\n')}`);
  });
});
