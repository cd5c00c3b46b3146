import { strict as assert } from 'node:assert';
import * as nodePath from 'node:path';
import type { ResolvedPath } from '../../../../../src/core/safety/paths';
import { WorkspaceSandbox } from '../../../../../src/core/safety/paths';
import { walk, walkBatches } from '../../../../../src/core/tools/builtin/walk';
import { MemoryFs } from '../../../../../src/core/workspace/memory-fs';

describe('tools/walk: batches and entries', () => {
  it('walkBatches yields the entries walk yields, in the same order, at most 512 at a time, with the same paths', async () => {
    const files: Record<string, string> = { '.gitignore': 'ignored/\n', 'ignored/x.txt': 'x', '.env': 'SECRET=1' };
    for (let i = 0; i < 1300; i++) files[`big/f${i}.txt`] = '';
    for (let d = 0; d < 5; d++) for (let f = 0; f < 3; f++) files[`d${d}/sub/g${f}.ts`] = '';
    const sandbox = new WorkspaceSandbox(new MemoryFs(['/ws'], files), { trusted: true, platform: 'posix' });
    const start = (await sandbox.resolve('.', 'list')) as ResolvedPath;
    const one: { abs: string; rel: string; type: string }[] = [];
    for await (const e of walk(sandbox, start, { recursive: true })) one.push({ abs: e.abs, rel: e.rel, type: e.type });
    const batched: { abs: string; rel: string; type: string }[] = [];
    let batches = 0;
    for await (const batch of walkBatches(sandbox, start, { recursive: true })) {
      assert.ok(batch.length > 0 && batch.length <= 512, String(batch.length));
      batches++;
      for (const e of batch) batched.push({ abs: e.abs, rel: e.rel, type: e.type });
    }
    assert.deepEqual(batched, one);
    assert.ok(batches >= 4, String(batches));
    assert.equal(one.length, 1 + 1300 + 5 + 5 + 15 + 1); // .gitignore, big/*, d*, d*/sub, d*/sub/*, big
    for (const e of one) assert.equal(e.abs, nodePath.posix.join('/ws', e.rel));
    assert.ok(!one.some((e) => e.rel.startsWith('ignored') || e.rel === '.env'));
  });
});
