import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import {
  checkedChoice,
  checkedNumber,
  describeAdjustment,
  NUMBER_SETTINGS,
  type SettingAdjustment,
} from '../../../src/host/setting-values';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: {
    configuration: {
      properties: Record<string, { default?: unknown; minimum?: number; maximum?: number; type?: unknown }>;
    };
  };
};

describe('setting values: what settings.json says against what Forge uses', () => {
  it('clamps a value below the minimum to it and says so (forge.history.maxTasks: 5 -> 10, not 1000)', () => {
    const adjusted: SettingAdjustment[] = [];
    assert.equal(checkedNumber('history.maxTasks', 5, NUMBER_SETTINGS['history.maxTasks'], adjusted), 10);
    assert.deepEqual(adjusted, [{ key: 'history.maxTasks', given: 5, used: 10, why: '5 is below its minimum of 10' }]);
    assert.equal(
      describeAdjustment(adjusted[0]!),
      'Setting forge.history.maxTasks: 5 is below its minimum of 10, so Forge uses 10.',
    );
  });

  it('an unset value is the default, silently; a valid one is used as written', () => {
    const adjusted: SettingAdjustment[] = [];
    assert.equal(checkedNumber('costBudgetUsd', undefined, NUMBER_SETTINGS.costBudgetUsd, adjusted), 2);
    assert.equal(checkedNumber('costBudgetUsd', null, NUMBER_SETTINGS.costBudgetUsd, adjusted), 2);
    assert.equal(checkedNumber('costBudgetUsd', 0.5, NUMBER_SETTINGS.costBudgetUsd, adjusted), 0.5);
    assert.equal(checkedNumber('history.maxTasks', 20.7, NUMBER_SETTINGS['history.maxTasks'], adjusted), 20);
    assert.deepEqual(adjusted, []);
  });

  it('a value that is not a number falls back to the default and says so', () => {
    const adjusted: SettingAdjustment[] = [];
    assert.equal(checkedNumber('tokenBudget', '500k', NUMBER_SETTINGS.tokenBudget, adjusted), 2_000_000);
    assert.equal(checkedNumber('tokenBudget', Number.NaN, NUMBER_SETTINGS.tokenBudget, adjusted), 2_000_000);
    assert.equal(adjusted.length, 2);
    assert.match(describeAdjustment(adjusted[0]!), /forge\.tokenBudget: "500k" is not a number, so Forge uses 2000000/);
  });

  it('clamps above a maximum', () => {
    const adjusted: SettingAdjustment[] = [];
    assert.equal(checkedNumber('x', 9, { fallback: 1, maximum: 5 }, adjusted), 5);
    assert.equal(adjusted[0]?.why, '9 is above its maximum of 5');
  });

  it('a choice outside the allowed ones falls back and says so; unset is silent', () => {
    const adjusted: SettingAdjustment[] = [];
    assert.equal(checkedChoice('sandbox.network', 'everything', ['off', 'on'], 'off', adjusted), 'off');
    assert.equal(checkedChoice('sandbox.network', undefined, ['off', 'on'], 'off', adjusted), 'off');
    assert.equal(checkedChoice('sandbox.network', 'on', ['off', 'on'], 'off', adjusted), 'on');
    assert.deepEqual(
      adjusted.map((a) => a.why),
      ['"everything" is not one of off, on'],
    );
  });

  it("every bound here is package.json's bound and default, so the settings UI and Forge agree", () => {
    for (const [key, spec] of Object.entries(NUMBER_SETTINGS)) {
      const declared = manifest.contributes.configuration.properties[`forge.${key}`];
      assert.ok(declared, `forge.${key} is declared in package.json`);
      assert.equal(declared.default, spec.fallback, `forge.${key} default`);
      assert.equal(declared.minimum, 'minimum' in spec ? spec.minimum : undefined, `forge.${key} minimum`);
      assert.equal(declared.maximum, 'maximum' in spec ? spec.maximum : undefined, `forge.${key} maximum`);
      assert.equal(declared.type === 'integer', 'integer' in spec && spec.integer === true, `forge.${key} integer`);
    }
  });
});
