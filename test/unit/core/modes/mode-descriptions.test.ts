// The Settings editor's forge.mode dropdown describes each built-in mode with the same words as the panel's mode
// switch and /mode (issue 26, item 12), in the same order.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MODE_NAMES, MODES } from '../../../../src/core/modes';

describe('core/modes descriptions in the forge.mode setting', () => {
  it('lists every built-in mode with its description', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { enum?: string[]; enumDescriptions?: string[] }> } };
    };
    const setting = manifest.contributes.configuration.properties['forge.mode']!;
    assert.deepEqual(setting.enum, [...MODE_NAMES]);
    assert.deepEqual(
      setting.enumDescriptions,
      MODE_NAMES.map((n) => MODES[n].description),
    );
  });
});
