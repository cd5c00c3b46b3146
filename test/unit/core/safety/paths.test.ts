import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { WorkspaceSandbox } from '../../../../src/core/safety/paths';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { NodeWorkspaceFs } from '../../../../src/node/node-fs';

describe('safety/paths: WorkspaceSandbox.resolve', () => {
  const mem = () =>
    new MemoryFs(['/ws'], {
      'src/a.ts': 'x',
      '.env': 'SECRET=1',
      '.env.example': 'A=',
      'certs/server.pem': 'k',
      '.forgeignore': 'private/\n*.log\n',
      'private/notes.md': 'n',
      'x.log': 'l',
      '.npmrc': '//registry/:_authToken=abc',
      'ok/.npmrc': 'save-exact=true',
    });
  const sb = (fs = mem(), trusted = true) => new WorkspaceSandbox(fs, { trusted, platform: 'posix' });

  it('resolves relative and in-root absolute paths', async () => {
    const r = await sb().resolve('src/a.ts', 'read');
    assert.ok(r.ok);
    assert.equal(r.abs, '/ws/src/a.ts');
    assert.equal(r.rel, 'src/a.ts');
    assert.ok((await sb().resolve('/ws/src/./a.ts', 'read')).ok);
    assert.ok((await sb().resolve('src/../src/a.ts', 'read')).ok);
  });

  it('rejects .. escapes and absolute paths outside the roots', async () => {
    for (const p of ['../etc/passwd', 'src/../../x', '/etc/passwd', '/wsx/a', '~/x']) {
      const r = await sb().resolve(p, 'read');
      assert.equal(r.ok, false, p);
      if (!r.ok) assert.equal(r.code, 'outside-workspace', p);
    }
  });

  it('rejects NUL bytes and Windows drive/UNC tricks', async () => {
    for (const p of [
      'src/a.ts\0.png',
      'C:\\Windows\\x',
      'c:foo',
      '\\\\server\\share\\x',
      '//server/share',
      '\\\\?\\C:\\x',
    ]) {
      const r = await sb().resolve(p, 'read');
      assert.equal(r.ok, false, p);
      if (!r.ok) assert.equal(r.code, 'invalid', p);
    }
    const win = new WorkspaceSandbox(mem(), { trusted: true, platform: 'win32' });
    for (const p of ['a.txt:stream', 'con', 'dir/NUL.txt', 'file.txt.']) {
      const r = await win.resolve(p, 'read');
      assert.equal(r.ok, false, p);
    }
  });

  it('refuses secrets by default with a readable reason, allows .env.example', async () => {
    for (const p of ['.env', 'certs/server.pem', '.npmrc']) {
      const r = await sb().resolve(p, 'read');
      assert.equal(r.ok, false, p);
      if (!r.ok) {
        assert.equal(r.code, 'secret');
        assert.match(r.reason, /secret|credentials/);
      }
    }
    assert.ok((await sb().resolve('.env.example', 'read')).ok);
    assert.ok((await sb().resolve('ok/.npmrc', 'read')).ok, '.npmrc without tokens is fine');
    const allow = new WorkspaceSandbox(mem(), { trusted: true, platform: 'posix', allowSecrets: true });
    assert.ok((await allow.resolve('.env', 'read')).ok);
  });

  it('refuses .forgeignore matches and .git (read, write, list), and all writes when untrusted', async () => {
    const a = await sb().resolve('private/notes.md', 'read');
    assert.ok(!a.ok && a.code === 'ignored');
    const b = await sb().resolve('x.log', 'write');
    assert.ok(!b.ok && b.code === 'ignored');
    for (const access of ['read', 'write', 'list'] as const) {
      const g = await sb().resolve(access === 'list' ? '.git' : '.git/config', access);
      assert.ok(!g.ok && g.code === 'git-internal', access);
    }
    const u = await sb(mem(), false).resolve('src/a.ts', 'write');
    assert.ok(!u.ok && u.code === 'untrusted');
    assert.ok((await sb(mem(), false).resolve('src/a.ts', 'read')).ok);
  });

  it('supports multi-root "folderName/path"', async () => {
    const fs = new MemoryFs(['/w/app', '/w/lib'], { '/w/lib/x.ts': 'x' });
    const r = await new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }).resolve('lib/x.ts', 'read');
    assert.ok(r.ok && r.abs === '/w/lib/x.ts');
  });

  describe('with real symlinks', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'forge-paths-'));
      mkdirSync(path.join(dir, 'ws', 'src'), { recursive: true });
      mkdirSync(path.join(dir, 'outside'));
      writeFileSync(path.join(dir, 'outside', 'secret.txt'), 'top secret');
      writeFileSync(path.join(dir, 'ws', 'src', 'a.ts'), 'ok');
      writeFileSync(path.join(dir, 'ws', '.env'), 'K=1');
      symlinkSync(path.join(dir, 'outside'), path.join(dir, 'ws', 'link-out'));
      symlinkSync(path.join(dir, 'outside', 'secret.txt'), path.join(dir, 'ws', 'file-out.txt'));
      symlinkSync(path.join(dir, 'ws', 'src', 'a.ts'), path.join(dir, 'ws', 'inside.ts'));
      symlinkSync(path.join(dir, 'ws', '.env'), path.join(dir, 'ws', 'harmless.txt'));
      symlinkSync(path.join(dir, 'outside', 'new-file'), path.join(dir, 'ws', 'dangling'));
    });
    after(() => dir && rmSync(dir, { recursive: true, force: true }));
    const real = () => new WorkspaceSandbox(new NodeWorkspaceFs([path.join(dir, 'ws')]), { trusted: true });

    it('rejects symlinks whose realpath leaves the root (files, folders, new files under them, dangling)', async () => {
      for (const p of ['file-out.txt', 'link-out/secret.txt', 'link-out/new.txt', 'dangling']) {
        const r = await real().resolve(p, p === 'dangling' || p.endsWith('new.txt') ? 'write' : 'read');
        assert.equal(r.ok, false, p);
        if (!r.ok) assert.equal(r.code, 'symlink-escape', p);
      }
    });

    it('allows links that stay inside, but not a link that points at a secret', async () => {
      assert.ok((await real().resolve('inside.ts', 'read')).ok);
      const r = await real().resolve('harmless.txt', 'read');
      assert.ok(!r.ok && r.code === 'secret');
    });
  });
});
