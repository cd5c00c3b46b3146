import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AuditTrail } from '../../../src/core/audit/audit-trail';
import { AuditFileSink } from '../../../src/node/audit-file-sink';

async function lines(file: string): Promise<string[]> {
  return (await fsp.readFile(file, 'utf8')).split('\n').filter(Boolean);
}

describe('node: AuditFileSink', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-audit-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('appends JSON lines through the trail and keeps them whole', async () => {
    const sink = new AuditFileSink(dir);
    const trail = new AuditTrail(sink, { now: () => 5 });
    trail.note('hello', { taskId: 't1', n: 1 });
    trail.note('world', { taskId: 't1', n: 2 });
    await trail.flush();
    const got = (await lines(sink.file)).map((l) => JSON.parse(l));
    assert.deepEqual(got, [
      { v: 1, ts: 5, taskId: 't1', n: 1, kind: 'hello' },
      { v: 1, ts: 5, taskId: 't1', n: 2, kind: 'world' },
    ]);
    assert.equal((await fsp.stat(sink.file)).mode & 0o077, 0, 'the log is private to the user');
  });

  it('rotates by size and keeps at most maxFiles files, newest first', async () => {
    const sink = new AuditFileSink(dir, { maxBytes: 2048, maxFiles: 3 });
    const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(200) })}\n`;
    for (let i = 0; i < 60; i++) await sink.append(line(i));
    const files = await sink.files();
    assert.deepEqual(files, [sink.file, sink.rotatedFile(1), sink.rotatedFile(2)]);
    for (const f of files) assert.ok((await fsp.stat(f)).size <= 2048, `${f} stays under the limit`);
    const newest = (await lines(sink.file)).map((l) => JSON.parse(l).i as number);
    assert.equal(newest.at(-1), 59);
    const older = (await lines(sink.rotatedFile(1))).map((l) => JSON.parse(l).i as number);
    assert.equal(older.at(-1), newest[0] - 1, 'rotation loses no line between the live file and the previous one');
    assert.equal(
      await fsp.access(sink.rotatedFile(3)).then(
        () => true,
        () => false,
      ),
      false,
    );
  });

  it('concurrent appends (one sink, and two sinks on the same folder like two windows) never tear or lose lines', async () => {
    const a = new AuditFileSink(dir);
    const b = new AuditFileSink(dir);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      const text = `${JSON.stringify({ w: i % 2 ? 'a' : 'b', i, pad: 'y'.repeat(i * 7) })}\n`;
      writes.push((i % 2 ? a : b).append(text));
    }
    await Promise.all(writes);
    const got = (await lines(a.file)).map((l) => JSON.parse(l) as { i: number });
    assert.equal(got.length, 200);
    assert.deepEqual(
      got.map((g) => g.i).sort((x, y) => x - y),
      Array.from({ length: 200 }, (_, i) => i),
    );
    const fromA = got.filter((g) => g.i % 2).map((g) => g.i);
    assert.deepEqual(
      fromA,
      [...fromA].sort((x, y) => x - y),
      'one sink keeps its own order',
    );
  });
});
