import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { ConcurrentChangeError, DiskEditApplier, NotPlainTextError, OutsideWorkspaceError } from '../../../src/node';

for (const [kind, syncMaxBytes] of [
  ['small files: in one event-loop turn', undefined],
  ['large files: asynchronous steps', -1],
] as const)
  describe(`node: DiskEditApplier (${kind})`, () => {
    const make = (o: ConstructorParameters<typeof DiskEditApplier>[0] = {}) =>
      new DiskEditApplier({ ...o, ...(syncMaxBytes !== undefined ? { syncMaxBytes } : {}) });
    let dir: string;
    beforeEach(async () => {
      dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-disk-applier-'));
    });
    afterEach(async () => {
      await fsp.rm(dir, { recursive: true, force: true });
    });
    const leftovers = async () => (await fsp.readdir(dir)).filter((n) => n.includes('.forge-'));

    it(
      syncMaxBytes === undefined
        ? 'writes a small file without letting other work run in between'
        : 'lets other work run between its steps',
      async () => {
        const file = path.join(dir, 'turn.ts');
        await fsp.writeFile(file, 'a\n');
        let ranBetween = false;
        setImmediate(() => (ranBetween = true));
        await make().apply({ path: file, content: 'b\n', isNewFile: false, original: 'a\n' });
        const ran = ranBetween;
        assert.equal(await fsp.readFile(file, 'utf8'), 'b\n');
        assert.equal(ran, syncMaxBytes !== undefined);
      },
    );

    it('replaces the file, keeps its mode and leaves no temp file', async () => {
      const file = path.join(dir, 'run.sh');
      await fsp.writeFile(file, 'echo old\n');
      await fsp.chmod(file, 0o751);
      await make().apply({ path: file, content: 'echo new\n', isNewFile: false, original: 'echo old\n' });
      assert.equal(await fsp.readFile(file, 'utf8'), 'echo new\n');
      assert.equal((await fsp.stat(file)).mode & 0o777, 0o751);
      assert.deepEqual(await leftovers(), []);
    });

    it('creates a new file and its folders', async () => {
      const file = path.join(dir, 'a', 'b', 'new.ts');
      await make().apply({ path: file, content: 'export {};\n', isNewFile: true });
      assert.equal(await fsp.readFile(file, 'utf8'), 'export {};\n');
    });

    it('keeps a UTF-8 byte-order mark the tools never saw', async () => {
      const file = path.join(dir, 'bom.cs');
      await fsp.writeFile(file, '\ufeffclass A {}\r\n');
      await make().apply({ path: file, content: 'class B {}\r\n', isNewFile: false, original: 'class A {}\r\n' });
      const bytes = await fsp.readFile(file);
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      assert.equal(bytes.subarray(3).toString('utf8'), 'class B {}\r\n');
    });

    it('writes through a symlink to its target and keeps the link', async () => {
      const target = path.join(dir, 'real.txt');
      const link = path.join(dir, 'link.txt');
      await fsp.writeFile(target, 'one\n');
      await fsp.symlink(target, link);
      await make().apply({ path: link, content: 'two\n', isNewFile: false, original: 'one\n' });
      assert.ok((await fsp.lstat(link)).isSymbolicLink());
      assert.equal(await fsp.readFile(target, 'utf8'), 'two\n');
    });

    it('refuses a file that changed since the proposal, and one created meanwhile, leaving both untouched', async () => {
      const file = path.join(dir, 'x.ts');
      await fsp.writeFile(file, 'user changed this\n');
      await assert.rejects(
        make().apply({ path: file, content: 'forge\n', isNewFile: false, original: 'before\n' }),
        (e: Error) => e instanceof ConcurrentChangeError && /changed since the edit was proposed/.test(e.message),
      );
      await assert.rejects(
        make().apply({ path: file, content: 'forge\n', isNewFile: true }),
        (e: Error) => e instanceof ConcurrentChangeError && /was created since/.test(e.message),
      );
      assert.equal(await fsp.readFile(file, 'utf8'), 'user changed this\n');
    });

    it('does not count line-ending normalisation as a change', async () => {
      const file = path.join(dir, 'crlf.txt');
      await fsp.writeFile(file, 'a\r\nb\r\n');
      await make().apply({ path: file, content: 'a\r\nc\r\n', isNewFile: false, original: 'a\nb\n' });
      assert.equal(await fsp.readFile(file, 'utf8'), 'a\r\nc\r\n');
    });

    it('refuses a file that is not UTF-8 instead of re-encoding its bytes', async () => {
      const file = path.join(dir, 'latin1.txt');
      const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in ISO-8859-1
      await fsp.writeFile(file, latin1);
      await assert.rejects(
        make().apply({ path: file, content: 'tea\n', isNewFile: false, original: 'caf\ufffd\n' }),
        (e: Error) => e instanceof NotPlainTextError,
      );
      assert.deepEqual(await fsp.readFile(file), latin1);
    });

    it('refuses a write that a link swapped in since the proposal would lead outside the workspace', async () => {
      const ws = path.join(dir, 'ws');
      const outside = path.join(dir, 'outside');
      await fsp.mkdir(ws);
      await fsp.mkdir(outside);
      await fsp.writeFile(path.join(outside, 'config'), 'precious\n');
      // A command replaced the workspace folder "src" with a link to a folder outside it.
      await fsp.symlink(outside, path.join(ws, 'src'));
      const applier = make({ roots: () => [ws] });
      await assert.rejects(
        applier.apply({
          path: path.join(ws, 'src', 'config'),
          content: 'owned\n',
          isNewFile: false,
          original: 'precious\n',
        }),
        (e: Error) => e instanceof OutsideWorkspaceError && /outside the workspace/.test(e.message),
      );
      await assert.rejects(
        applier.apply({ path: path.join(ws, 'src', 'new.txt'), content: 'x', isNewFile: true }),
        (e: Error) => e instanceof OutsideWorkspaceError,
      );
      assert.equal(await fsp.readFile(path.join(outside, 'config'), 'utf8'), 'precious\n');
      assert.equal(existsSync(path.join(outside, 'new.txt')), false);
      // Inside the workspace, a link to another workspace file is fine.
      await fsp.writeFile(path.join(ws, 'real.txt'), 'a\n');
      await fsp.symlink(path.join(ws, 'real.txt'), path.join(ws, 'alias.txt'));
      await applier.apply({ path: path.join(ws, 'alias.txt'), content: 'b\n', isNewFile: false, original: 'a\n' });
      assert.equal(await fsp.readFile(path.join(ws, 'real.txt'), 'utf8'), 'b\n');
    });

    it('refuses a read-only file (no write bit, also for root) instead of renaming a new one over it', async () => {
      const file = path.join(dir, 'locked.txt');
      await fsp.writeFile(file, 'keep\n');
      await fsp.chmod(file, 0o444);
      await assert.rejects(
        make().apply({ path: file, content: 'new\n', isNewFile: false, original: 'keep\n' }),
        /read-only; Forge did not change it/,
      );
      assert.equal(await fsp.readFile(file, 'utf8'), 'keep\n');
    });

    it('stops before writing when the signal is aborted', async () => {
      const file = path.join(dir, 'y.ts');
      await fsp.writeFile(file, 'old\n');
      const ac = new AbortController();
      ac.abort(new Error('stopped'));
      await assert.rejects(
        make().apply({ path: file, content: 'new\n', isNewFile: false, original: 'old\n' }, ac.signal),
        /stopped/,
      );
      assert.equal(await fsp.readFile(file, 'utf8'), 'old\n');
    });
  });
