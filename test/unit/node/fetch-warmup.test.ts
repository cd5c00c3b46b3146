import { strict as assert } from 'node:assert';
import { warmFetch } from '../../../src/node/fetch-warmup';

describe('host/fetch-warmup', () => {
  it('sends one request to a loopback server of its own, once per host, and leaves nothing listening', async () => {
    const first = warmFetch();
    assert.equal(warmFetch(), first, 'later calls share the first warm-up');
    const ms = await first;
    assert.equal(typeof ms, 'number', 'the warm-up request went through');
    assert.ok(ms! >= 0);
    // No server left behind: the process has no listening handle from it.
    const servers = (process as unknown as { _getActiveHandles(): unknown[] })
      ._getActiveHandles()
      .filter((h) => h?.constructor?.name === 'Server');
    assert.equal(servers.length, 0);
  });
});
