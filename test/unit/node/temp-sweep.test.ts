import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sweepStaleTemps } from '../../../src/node/temp-sweep';

describe('node/sweepStaleTemps: what an interrupted write left behind', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-sweep-'));
  });
  afterEach(() => fsp.rm(dir, { recursive: true, force: true }));

  it('removes old temp files at any level, keeps fresh ones (a live write) and every other file', async () => {
    const old = Date.now() / 1000 - 3600;
    const files = {
      'history/tasks/.t1.json.ab12cd34.tmp': true,
      'leases/t1.json.0f0f0f0f.tmp': true,
      'history/tasks/t1.json': false,
      'audit/audit.jsonl': false,
    };
    for (const f of Object.keys(files)) {
      await fsp.mkdir(path.dirname(path.join(dir, f)), { recursive: true });
      await fsp.writeFile(path.join(dir, f), 'x');
      await fsp.utimes(path.join(dir, f), old, old);
    }
    await fsp.writeFile(path.join(dir, 'leases', 'fresh.json.11111111.tmp'), 'x');
    const logged: string[] = [];
    assert.equal(await sweepStaleTemps(dir, { log: (m) => logged.push(m) }), 2);
    for (const [f, temp] of Object.entries(files))
      assert.equal(
        await fsp.access(path.join(dir, f)).then(
          () => true,
          () => false,
        ),
        !temp,
        f,
      );
    await fsp.access(path.join(dir, 'leases', 'fresh.json.11111111.tmp'));
    assert.equal(logged.length, 1);
  });

  it('a missing folder is nothing to do', async () => {
    assert.equal(await sweepStaleTemps(path.join(dir, 'nope')), 0);
  });
});
