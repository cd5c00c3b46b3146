import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OutputSpool, readSpoolLines, stripAnsi } from '../../../src/node/output-spool';
import { ripgrepCandidates } from '../../../src/node/ripgrep-search';

describe('host/output-spool', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-spool-test-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ignores output that arrives after close (a terminal stream draining late must not write to a reused fd)', () => {
    const s = new OutputSpool(100, dir, 'late');
    s.push('early');
    s.close();
    // The OS hands the freed descriptor to the next file opened.
    const other = path.join(dir, 'other.txt');
    const fd = fs.openSync(other, 'w');
    try {
      assert.doesNotThrow(() => s.push('late'));
    } finally {
      fs.closeSync(fd);
    }
    assert.strictEqual(fs.readFileSync(other, 'utf8'), '', 'nothing written into the other file');
    assert.strictEqual(fs.readFileSync(s.file!, 'utf8'), 'early');
    assert.strictEqual(s.text(), 'early');
  });

  it('keeps everything when under the cap', () => {
    const s = new OutputSpool(100, dir, 'small');
    s.push('hello ');
    s.push('world');
    s.close();
    assert.strictEqual(s.text(), 'hello world');
    assert.strictEqual(s.truncated, false);
  });

  it('keeps head + tail past the cap and the full text on disk for paging', async () => {
    const s = new OutputSpool(40, dir, 'big');
    for (let i = 1; i <= 100; i++) s.push(`line-${i}\n`);
    s.close();
    assert.ok(s.truncated);
    const t = s.text();
    assert.ok(t.startsWith('line-1\nline-2'), t);
    assert.ok(t.trimEnd().endsWith('line-100'), t);
    assert.match(t, /characters omitted/);
    const page = await readSpoolLines(dir, 'big', 50, 52);
    assert.deepStrictEqual(page, { lines: ['line-50', 'line-51', 'line-52'], totalLines: 100 });
    await assert.rejects(readSpoolLines(dir, '../etc/passwd', 1, 2), /invalid output reference/);
  });

  it('strips colour codes, shell-integration OSC marks and progress redraws', () => {
    assert.strictEqual(stripAnsi('\x1b]633;C\x07\x1b[32mok\x1b[0m\r\n50%\r100%\n'), 'ok\n100%\n');
  });

  it('looks for ripgrep in both VS Code layouts', () => {
    const c = ripgrepCandidates('/app', 'linux', 'x64');
    assert.ok(c.includes(path.join('/app', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg')));
    assert.ok(c.includes(path.join('/app', 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg')));
    assert.ok(c.includes(path.join('/app', 'node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64', 'rg')));
  });
});
