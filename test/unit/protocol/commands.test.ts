// The palette's command table is keyed by COMMAND_IDS (a type error when a handler is missing); this keeps that list
// equal to the commands package.json declares, so a declared command without a handler cannot ship.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND_IDS } from '../../../src/protocol/commands';

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus?: Record<string, { command?: string }[]>;
    keybindings?: { command: string }[];
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as Manifest;
const declared = manifest.contributes.commands.map((c) => c.command);

describe('protocol/commands: the palette table against package.json', () => {
  it('has one id for each command package.json declares, and none it does not', () => {
    assert.deepEqual([...COMMAND_IDS].sort(), [...declared].sort());
    assert.equal(new Set(COMMAND_IDS).size, COMMAND_IDS.length, 'no id twice');
  });

  it('every menu item and keybinding runs a declared command', () => {
    const menus = Object.values(manifest.contributes.menus ?? {})
      .flat()
      .flatMap((m) => (m.command ? [m.command] : []));
    const keys = (manifest.contributes.keybindings ?? []).map((k) => k.command);
    const ids = new Set<string>(COMMAND_IDS);
    assert.deepEqual(
      [...menus, ...keys].filter((c) => !ids.has(c)),
      [],
    );
  });
});
