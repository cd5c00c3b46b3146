import { strict as assert } from 'node:assert';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import type { Tool } from '../../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import type { SearchBackend, SearchQuery } from '../../../../../src/core/workspace/types';
import { approved, byName, call, ctx, previewOf } from '../../../../support/tool-context';

function setup(files: Record<string, string | Uint8Array>, opts: { trusted?: boolean; search?: SearchBackend } = {}) {
  const fs = new MemoryFs(['/ws'], files);
  const applier = new FsEditApplier(fs);
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier,
    search: opts.search,
    sandbox: { trusted: opts.trusted ?? true, platform: 'posix' },
  });
  const t = (n: string): Tool => byName(tools, n);
  return { fs, applier, t };
}

describe('tools/read_file', () => {
  const many = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  it('returns numbered lines for a range and records the read', async () => {
    const { t } = setup({ 'a.txt': 'one\ntwo\nthree\nfour\n' });
    const r = await call(t('read_file'), { path: 'a.txt', startLine: 2, endLine: 3 });
    assert.equal(r.isError, undefined);
    assert.match(r.content, /a\.txt \(4 lines\), showing lines 2-3\n2 \| two\n3 \| three$/);
    assert.deepEqual(r.effects?.read, ['a.txt']);
  });
  it('caps at 2000 lines and says how to page', async () => {
    const { t } = setup({ 'big.txt': many });
    const r = await call(t('read_file'), { path: 'big.txt' });
    assert.match(r.content, /2000 \| line 2000\n/);
    assert.doesNotMatch(r.content, /line 2001\b/);
    assert.match(r.content, /startLine=2001/);
    const next = await call(t('read_file'), { path: 'big.txt', startLine: 2001 });
    assert.match(next.content, /2500 \| line 2500$/);
  });
  it('caps by size (256 KB) on long lines', async () => {
    const { t } = setup({ 'wide.txt': Array.from({ length: 500 }, () => 'x'.repeat(1500)).join('\n') });
    const r = await call(t('read_file'), { path: 'wide.txt' });
    assert.ok(r.content.length <= 256 * 1024 + 500);
    assert.match(r.content, /Call read_file with startLine=\d+ to continue/);
  });
  it('detects binary files (NUL bytes, invalid UTF-8) and explains', async () => {
    const { t } = setup({
      'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
      'latin.bin': new Uint8Array(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 100))),
    });
    for (const p of ['img.png', 'latin.bin']) {
      const r = await call(t('read_file'), { path: p });
      assert.match(r.content, /binary file/, p);
    }
  });
  it('refuses secrets and escapes, reports missing files and bad ranges', async () => {
    const { t } = setup({ '.env': 'K=1', 'a.txt': 'a\n' });
    for (const [args, re] of [
      [{ path: '.env' }, /Refused: .*secret/],
      [{ path: '../../etc/passwd' }, /Refused: .*escapes/],
      [{ path: 'nope.txt' }, /File not found/],
      [{ path: 'a.txt', startLine: 5 }, /only 1 lines/],
    ] as const) {
      const r = await call(t('read_file'), args);
      assert.equal(r.isError, true);
      assert.match(r.content, re);
    }
  });
});

describe('tools/write_file', () => {
  it('preview shows original vs proposed; execute writes and summarises', async () => {
    const { t, fs } = setup({ 'a.txt': 'one\ntwo\n' });
    const w = t('write_file');
    const p = await previewOf(w, w.input.parse({ path: 'a.txt', content: 'one\n2\nthree\n' }), ctx());
    assert.deepEqual(p, {
      kind: 'edit',
      path: '/ws/a.txt',
      displayPath: 'a.txt',
      original: 'one\ntwo\n',
      proposed: 'one\n2\nthree\n',
      isNewFile: false,
    });
    const r = await call(w, { path: 'a.txt', content: 'one\n2\nthree\n' }, ctx({ approval: approved() }));
    assert.equal(fs.get('a.txt'), 'one\n2\nthree\n');
    assert.match(r.content, /\+2 -1 lines/);
    assert.deepEqual(r.effects?.edited, ['a.txt']);
  });
  it('honours the user-edited content from the approval', async () => {
    const { t, fs } = setup({});
    const w = t('write_file');
    const p = await previewOf(w, w.input.parse({ path: 'src/new.ts', content: 'model\n' }), ctx());
    assert.equal(p.kind === 'edit' && p.isNewFile, true);
    const r = await call(w, { path: 'src/new.ts', content: 'model\n' }, ctx({ approval: approved('user\n') }));
    assert.equal(fs.get('src/new.ts'), 'user\n');
    assert.match(r.content, /user edited/);
  });
  it('keeps a CRLF file CRLF and refuses untrusted workspaces and .git', async () => {
    const { t, fs } = setup({ 'w.txt': 'a\r\nb\r\n' });
    await call(t('write_file'), { path: 'w.txt', content: 'a\nc\n' });
    assert.equal(fs.get('w.txt'), 'a\r\nc\r\n');
    const g = await call(t('write_file'), { path: '.git/hooks/pre-commit', content: 'x' });
    assert.match(g.content, /Refused/);
    const u = setup({ 'a.txt': 'a' }, { trusted: false });
    const r = await call(u.t('write_file'), { path: 'a.txt', content: 'b' });
    assert.match(r.content, /not trusted/);
    assert.equal(u.fs.get('a.txt'), 'a');
  });
});

describe('tools/apply_diff (tool)', () => {
  it('previews the proposed content and applies the user-edited version', async () => {
    const { t, fs, applier } = setup({ 'a.ts': 'let a = 1;\nlet b = 2;\n' });
    const tool = t('apply_diff');
    const args = { path: 'a.ts', blocks: [{ search: 'let b = 2;', replace: 'let b = 3;' }] };
    const p = await previewOf(tool, tool.input.parse(args), ctx());
    assert.ok(
      p.kind === 'edit' && p.proposed === 'let a = 1;\nlet b = 3;\n' && p.original === 'let a = 1;\nlet b = 2;\n',
    );
    const r = await call(tool, args, ctx({ approval: approved('let a = 1;\nlet b = 4;\n') }));
    assert.equal(fs.get('a.ts'), 'let a = 1;\nlet b = 4;\n');
    assert.equal(applier.applied.length, 1);
    assert.equal(applier.applied[0]!.taskId, 't1', 'the edit carries its task (the journal records it there)');
    assert.match(r.content, /Applied 1 block/);
  });
  it('leaves the file untouched and reports when a block fails', async () => {
    const { t, fs, applier } = setup({ 'a.ts': 'let a = 1;\nlet b = 2;\n' });
    const r = await call(t('apply_diff'), {
      path: 'a.ts',
      blocks: [
        { search: 'let a = 1;', replace: 'x' },
        { search: 'let c = 2;', replace: 'y' },
      ],
    });
    assert.equal(r.isError, true);
    assert.match(r.content, /Closest candidate: line 2/);
    assert.equal(fs.get('a.ts'), 'let a = 1;\nlet b = 2;\n');
    assert.equal(applier.applied.length, 0);
  });
});

describe('tools/list_files', () => {
  const files = {
    '.gitignore': 'dist/\n*.log\n',
    '.forgeignore': 'secret-stuff/\n',
    'src/a.ts': '',
    'src/b.ts': '',
    'src/gen/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
    'src/gen/x.gen.ts': '',
    'src/gen/keep.gen.ts': '',
    'src/gen/y.ts': '',
    'dist/out.js': '',
    'debug.log': '',
    'node_modules/m/index.js': '',
    'secret-stuff/k.txt': '',
    'README.md': '',
  };
  it('lists one level, folders with a slash, honouring ignores', async () => {
    const { t } = setup(files);
    const r = await call(t('list_files'), {});
    assert.deepEqual((r.data as { entries: string[] }).entries, ['.forgeignore', '.gitignore', 'README.md', 'src/']);
  });
  it('recurses with nested .gitignore (including negation) and skips node_modules/.git', async () => {
    const { t } = setup(files);
    const r = await call(t('list_files'), { recursive: true });
    const entries = (r.data as { entries: string[] }).entries;
    assert.ok(entries.includes('src/gen/keep.gen.ts') && entries.includes('src/gen/y.ts'));
    for (const gone of ['src/gen/x.gen.ts', 'dist/', 'debug.log', 'node_modules/', 'secret-stuff/'])
      assert.ok(!entries.includes(gone), gone);
    const sub = await call(t('list_files'), { path: 'src/gen' });
    assert.deepEqual((sub.data as { entries: string[] }).entries, ['.gitignore', 'keep.gen.ts', 'y.ts']);
  });
  it('caps the listing and counts what was omitted', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`f/${String(i).padStart(2, '0')}.txt`] = '';
    const { t } = setup(many);
    const r = await call(t('list_files'), { path: 'f', maxEntries: 10 });
    assert.equal((r.data as { entries: string[] }).entries.length, 10);
    assert.match(r.content, /20 more entries omitted/);
  });
});

describe('tools/search_files', () => {
  const files = {
    'src/a.ts': 'import x from "y";\nfunction foo() {\n  return bar();\n}\n',
    'src/b.js': 'const FOO = 1;\nfoo();\n',
    'src/c.ts': Array.from({ length: 50 }, (_, i) => `foo${i}`).join('\n'),
    '.env': 'foo=secret',
    'bin.dat': new Uint8Array([102, 111, 111, 0, 1]),
    'dist/foo.js': 'foo',
    '.gitignore': 'dist/\n',
  };
  it('finds regex matches with context, as path:line: text', async () => {
    const { t } = setup(files);
    const r = await call(t('search_files'), { pattern: 'return\\s+bar', contextLines: 1 });
    assert.match(r.content, /Found 1 matches in 1 files/);
    assert.match(r.content, /src\/a\.ts-2- function foo\(\) \{\nsrc\/a\.ts:3: {3}return bar\(\);\nsrc\/a\.ts-4- \}/);
  });
  it('filters by glob, honours case sensitivity, skips secrets/binaries/ignored', async () => {
    const { t } = setup(files);
    const js = await call(t('search_files'), { pattern: 'foo', glob: '*.js', contextLines: 0 });
    assert.match(js.content, /src\/b\.js:1: const FOO = 1;/);
    assert.doesNotMatch(js.content, /\.ts:|\.env|dist|bin\.dat/);
    const cs = await call(t('search_files'), { pattern: 'FOO', glob: '*.js', caseSensitive: true, contextLines: 0 });
    assert.equal((cs.data as { totalMatches: number }).totalMatches, 1);
  });
  it('caps results and reports the total count', async () => {
    const { t } = setup(files);
    const r = await call(t('search_files'), { pattern: 'foo\\d+', maxResults: 5, contextLines: 0 });
    assert.equal((r.data as { totalMatches: number; returned: number }).totalMatches, 50);
    assert.equal((r.data as { returned: number }).returned, 5);
    assert.match(r.content, /Found 50 matches, showing the first 5/);
    assert.match(r.content, /45 more matches not shown/);
  });
  it('explains an invalid regex', async () => {
    const { t } = setup(files);
    const r = await call(t('search_files'), { pattern: 'foo(' });
    assert.equal(r.isError, true);
    assert.match(r.content, /Invalid regular expression/);
  });
  it('uses the SearchBackend when given and still drops refused paths', async () => {
    let seen: SearchQuery | undefined;
    const backend: SearchBackend = {
      async search(q) {
        seen = q;
        return {
          matches: [
            { path: '/ws/src/a.ts', line: 2, text: 'function foo() {' },
            { path: '/ws/.env', line: 1, text: 'foo=secret' },
          ],
          totalMatches: 2,
        };
      },
    };
    const { t } = setup({ ...files, '.forgeignore': 'x/\n' }, { search: backend });
    const r = await call(t('search_files'), { pattern: 'foo', glob: '*.ts' });
    assert.equal(seen?.glob, '*.ts');
    assert.deepEqual(seen?.ignoreFiles, ['/ws/.forgeignore']);
    assert.match(r.content, /src\/a\.ts:2: function foo/);
    assert.doesNotMatch(r.content, /secret/);
  });
});
