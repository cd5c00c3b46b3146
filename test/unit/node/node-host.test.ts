import { strict as assert } from 'node:assert';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs } from '../../../src/node';
import { byName, call, ctx } from '../../support/tool-context';

describe('node: NodeWorkspaceFs + DiskEditApplier through the tools', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(tmpdir(), 'forge-node-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));
  const tools = () =>
    createWorkspaceTools({
      fs: new NodeWorkspaceFs([ws]),
      runner: new NodeCommandRunner(),
      applier: new DiskEditApplier(),
      sandbox: { trusted: true },
    });

  it('apply_diff writes atomically (no temp file left), keeps the file mode and CRLF', async () => {
    const f = path.join(ws, 'run.sh');
    writeFileSync(f, '#!/bin/sh\r\necho one\r\n');
    chmodSync(f, 0o755);
    const r = await call(
      byName(tools(), 'apply_diff'),
      { path: 'run.sh', blocks: [{ search: 'echo one', replace: 'echo two\necho three' }] },
      ctx(),
    );
    assert.equal(r.isError, undefined, r.content);
    assert.equal(readFileSync(f, 'utf8'), '#!/bin/sh\r\necho two\r\necho three\r\n');
    assert.equal(statSync(f).mode & 0o777, 0o755);
    assert.deepEqual(readdirSync(ws), ['run.sh']);
  });

  it('write_file creates parent folders; read_file and list_files see the result', async () => {
    const all = tools();
    await call(byName(all, 'write_file'), { path: 'a/b/c.txt', content: 'hi\n' });
    assert.equal(readFileSync(path.join(ws, 'a/b/c.txt'), 'utf8'), 'hi\n');
    const read = await call(byName(all, 'read_file'), { path: 'a/b/c.txt' });
    assert.match(read.content, /1 \| hi/);
    const list = await call(byName(all, 'list_files'), { recursive: true });
    assert.deepEqual((list.data as { entries: string[] }).entries, ['a/', 'a/b/', 'a/b/c.txt']);
  });

  it('readFileHead reads at most maxBytes and says whether the file holds more', async () => {
    const fs = new NodeWorkspaceFs([ws]);
    writeFileSync(path.join(ws, 'f.txt'), 'abcdef');
    const read = async (n: number) => {
      const r = await fs.readFileHead(path.join(ws, 'f.txt'), n);
      return [Buffer.from(r.data).toString(), r.truncated];
    };
    assert.deepEqual(await read(3), ['abc', true]);
    assert.deepEqual(await read(6), ['abcdef', false]);
    assert.deepEqual(await read(100_000), ['abcdef', false]);
    // Scratch buffers are reused: an earlier longer read must not leak into a later result.
    writeFileSync(path.join(ws, 'g.txt'), 'xy');
    assert.equal(Buffer.from((await fs.readFileHead(path.join(ws, 'g.txt'), 64)).data).toString(), 'xy');
    await assert.rejects(fs.readFileHead(path.join(ws, 'missing.txt'), 10));
  });
});
