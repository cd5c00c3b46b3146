import { strict as assert } from 'node:assert';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import { byName, call } from '../../../../support/tool-context';

// read_file finds lines in the file's bytes and decodes only the lines it shows: the result must be what decoding
// the whole file and splitting it gives, whatever the encoding details (BOM, U+FEFF inside, CRLF, invalid UTF-8).
function tool(bytes: Uint8Array) {
  const fs = new MemoryFs(['/ws'], { 'f.txt': bytes });
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, platform: 'posix' },
  });
  return byName(tools, 'read_file');
}

/** The rows read_file should show, from the whole file decoded at once. */
function reference(bytes: Uint8Array, start: number, end: number): { total: number; rows: string[] } {
  let text = new TextDecoder().decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const last = Math.min(end, lines.length);
  const width = String(last).length;
  const rows: string[] = [];
  for (let n = start; n <= last; n++) rows.push(`${String(n).padStart(width)} | ${lines[n - 1]!.replace(/\r$/, '')}`);
  return { total: text === '' ? 0 : lines.length, rows };
}

const enc = (s: string) => new TextEncoder().encode(s);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('tools/read_file: lines found in the bytes, only the shown ones decoded', () => {
  const files: Record<string, Uint8Array> = {
    bom: enc('\uFEFFfirst\nsecond\nthird\n'),
    'feff inside': enc('one\n\uFEFFtwo starts with U+FEFF\nthree'),
    crlf: enc('α\r\nβ\r\nγ δ\r\nlast without newline'),
    'non-ascii': enc('日本語\n😀 emoji line\nnaïve café\n'),
    'invalid utf-8': cat(
      enc('good\n'.repeat(12)),
      new Uint8Array([0xe6, 0x97, 0x0a]),
      enc('after a cut character\n'),
      new Uint8Array([0xff, 0x41, 0x0a]),
      enc('end'),
    ),
  };
  for (const [name, bytes] of Object.entries(files)) {
    it(`${name}: every range matches decoding the whole file`, async () => {
      const t = tool(bytes);
      const { total } = reference(bytes, 1, Infinity);
      for (let start = 1; start <= total; start++) {
        for (const end of [start, start + 1, total]) {
          const r = await call(t, { path: 'f.txt', startLine: start, endLine: end });
          const want = reference(bytes, start, end);
          const rows = r.content
            .split('\n')
            .slice(1)
            .filter((l) => !l.startsWith('['));
          assert.deepEqual(rows, want.rows, `${name} ${start}-${end}`);
          assert.match(r.content, new RegExp(`^f\\.txt \\(${want.total} lines\\)`));
        }
      }
    });
  }

  it('a file that is only a BOM is empty; a page past the end is refused', async () => {
    assert.match((await call(tool(enc('\uFEFF')), { path: 'f.txt' })).content, /is empty/);
    const r = await call(tool(enc('a\nb\n')), { path: 'f.txt', startLine: 3 });
    assert.equal(r.isError, true);
    assert.match(r.content, /only 2 lines/);
  });

  it('the last page of a big file shows the same lines as decoding it whole', async () => {
    const text =
      Array.from({ length: 30_000 }, (_, i) => `${i}: ${'é'.repeat(i % 40)} ${i % 3 === 0 ? '\r' : ''}`).join('\n') +
      '\n';
    const bytes = enc(text);
    const r = await call(tool(bytes), { path: 'f.txt', startLine: 28_001 });
    const want = reference(bytes, 28_001, 30_000);
    assert.deepEqual(r.content.split('\n').slice(1), want.rows);
    assert.match(r.content, /^f\.txt \(30000 lines\), showing lines 28001-30000\n/);
  });
});
