import assert from 'node:assert/strict';
import { noun, plural } from '../../../src/core/plural';

describe('core/plural', () => {
  it('says one noun for one and the plural form for zero and many', () => {
    assert.equal(plural(1, 'file'), '1 file');
    assert.equal(plural(0, 'file'), '0 files');
    assert.equal(plural(3, 'file'), '3 files');
    assert.equal(plural(2, 'entry', 'entries'), '2 entries');
    assert.equal(noun(1, 'Block'), 'Block');
    assert.equal(noun(2, 'is', 'are'), 'are');
  });
});
