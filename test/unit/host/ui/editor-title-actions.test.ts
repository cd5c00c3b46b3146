// The proposed edit's Accept / Reject in the diff editor's title bar stay visible when other extensions add title
// buttons (issue 26, item 12). VS Code sorts a menu group's items by their order (`group@order`, none = 0), then
// title, and folds every action past the ninth into "..." (the editor title toolbar's maxItems). An order-less
// button of another extension used to sort before Forge's @1 and @2 and push Reject, then Accept, into "...".
// scripts/screenshots/diff-title-shots.mjs shows it in the real VS Code.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface MenuItem {
  command: string;
  group?: string;
  when?: string;
}
const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: { menus: Record<string, MenuItem[]> };
};

/** group and order as VS Code's menus extension point reads `group@order` (`Number(order) || undefined`). */
function parse(item: MenuItem): { command: string; group: string; order: number } {
  const g = item.group ?? '';
  const at = g.lastIndexOf('@');
  return at > 0
    ? { command: item.command, group: g.slice(0, at), order: Number(g.slice(at + 1)) || 0 }
    : { command: item.command, group: g, order: 0 };
}

/** The navigation items in VS Code's order (order, then title; the command id stands in for the title). */
function navigation(items: MenuItem[]): string[] {
  return items
    .map(parse)
    .filter((i) => i.group === 'navigation')
    .sort((a, b) => a.order - b.order || a.command.localeCompare(b.command))
    .map((i) => i.command);
}

describe('host/ui: the diff editor title keeps Accept and Reject', () => {
  const ours = manifest.contributes.menus['editor/title']!.filter((m) =>
    ['forge.acceptEdit', 'forge.rejectEdit'].includes(m.command),
  );

  it('declares Accept then Reject in the navigation group', () => {
    assert.deepEqual(navigation(ours), ['forge.acceptEdit', 'forge.rejectEdit']);
  });

  it("sorts them first among other extensions' buttons, order-less or not, so none of them folds", () => {
    const others: MenuItem[] = [
      // Order-less, as the Markdown preview and most extensions declare them ("a..." sorts before "forge...").
      ...Array.from({ length: 8 }, (_, i) => ({ command: `a.other${i}`, group: 'navigation' })),
      // The diff editor's own (previous / next change, whitespace, inline view).
      ...Array.from({ length: 4 }, (_, i) => ({ command: `workbench.diff${i}`, group: `navigation@${i + 1}` })),
      { command: 'z.negative', group: 'navigation@-1' },
    ];
    const sorted = navigation([...others, ...ours]);
    // The toolbar keeps 9 minus its exempted core actions (split editor); the first ones never fold.
    assert.deepEqual(sorted.slice(0, 2), ['forge.acceptEdit', 'forge.rejectEdit'], sorted.join(', '));
  });
});
