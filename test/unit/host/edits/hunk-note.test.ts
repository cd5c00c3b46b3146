// A hunk's note in the diff editor is short enough to fit beside the code, and its hover carries the state and the
// Keep / Drop actions as links to the hunk commands (issue 26, item 8): the ghost sentence "Forge hunk 1/1 · not
// reviewed (right-click: ...)" was cut off at the editor's edge and hid the actions in a context menu.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HUNK_COMMANDS, hunkHoverMarkdown, hunkNote } from '../../../../src/host/edits/hunk-note';

/** The [label](command:id?args) links of a hover, with their arguments decoded. */
function links(md: string): { label: string; command: string; args: unknown }[] {
  return [...md.matchAll(/\[([^\]]+)\]\(command:([\w.]+)\?([^)]*)\)/g)].map((m) => ({
    label: m[1]!,
    command: m[2]!,
    args: JSON.parse(decodeURIComponent(m[3]!)),
  }));
}

describe('host/edits hunk note and hover', () => {
  it('an unreviewed hunk: a short note that points at the hover, and Keep / Drop in the hover', () => {
    const note = hunkNote(1, 3, undefined);
    assert.equal(note, '◀ Forge hunk 2/3: hover to keep or drop');
    assert.ok(note.length <= 45, 'fits beside a line of code');
    assert.doesNotMatch(note, /right-click|not reviewed/);
    const md = hunkHoverMarkdown('req-7', 1, 3, undefined);
    assert.match(md, /^\*\*Forge hunk 2 of 3\*\*: not reviewed\n\n/);
    assert.deepEqual(links(md), [
      { label: '$(check) Keep', command: 'forge.acceptHunk', args: ['req-7', 1] },
      { label: '$(close) Drop…', command: 'forge.rejectHunk', args: ['req-7', 1] },
    ]);
  });

  it('a kept hunk offers Drop and Clear; a dropped one says why and offers Keep and Clear', () => {
    assert.equal(hunkNote(0, 1, { state: 'accepted' }), '✓ hunk 1/1 kept');
    const kept = hunkHoverMarkdown('r', 0, 1, { state: 'accepted' });
    assert.match(kept, /kept: it will be written/);
    assert.deepEqual(
      links(kept).map((l) => l.label),
      ['$(close) Drop…', 'Clear'],
    );
    assert.equal(hunkNote(2, 3, { state: 'rejected', reason: 'keep the API' }), '✗ hunk 3/3 dropped');
    const dropped = hunkHoverMarkdown('r', 2, 3, { state: 'rejected', reason: 'keep the API' });
    assert.match(dropped, /dropped \(“keep the API”\): it will not be written/);
    assert.deepEqual(
      links(dropped).map((l) => [l.label, l.command]),
      [
        ['$(check) Keep', 'forge.acceptHunk'],
        ['Clear', 'forge.resetHunk'],
      ],
    );
  });

  it('links only to the hunk commands, which package.json declares', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[] };
    };
    const declared = new Set(manifest.contributes.commands.map((c) => c.command));
    const all = [undefined, { state: 'accepted' as const }, { state: 'rejected' as const }].flatMap((d) =>
      links(hunkHoverMarkdown('x', 0, 1, d)),
    );
    assert.ok(all.length >= 6);
    for (const l of all) {
      assert.ok(Object.values(HUNK_COMMANDS).includes(l.command as never), l.command);
      assert.ok(declared.has(l.command), `${l.command} is declared`);
    }
  });
});
