// Hostile paths against every file tool and both search backends: .git in any letter case, secrets, .forgeignore,
// symlinks out of the workspace or into .git, multi-root. What read_file refuses, nothing else may reveal.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { WorkspaceSandbox, type SandboxOptions } from '../../../../../src/core/safety/paths';
import { createApplyDiffTool } from '../../../../../src/core/tools/builtin/apply-diff-tool';
import { createListFilesTool } from '../../../../../src/core/tools/builtin/list-files';
import { createReadFileTool } from '../../../../../src/core/tools/builtin/read-file';
import { createSearchFilesTool } from '../../../../../src/core/tools/builtin/search-files';
import { createWriteFileTool } from '../../../../../src/core/tools/builtin/write-file';
import type { Tool } from '../../../../../src/core/tools/types';
import { FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import type { SearchBackend, WorkspaceFs } from '../../../../../src/core/workspace/types';
import { NodeWorkspaceFs } from '../../../../../src/node/node-fs';
import { RipgrepSearch } from '../../../../../src/node/ripgrep-search';
import { callsTurn, doneTurn } from '../../../../support/scripted-model';
import { harness, ScriptedApprover } from '../../../../support/loop-harness';
import { call, ctx, refusalOf } from '../../../../support/tool-context';

const repo = path.resolve(__dirname, '../../../../..');

/** A ripgrep binary: $FORGE_RG, VS Code's package layouts in this repo, or rg on PATH. No binary fails the tests. */
function findRipgrep(): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = [
    process.env.FORGE_RG,
    process.env.FORGE_BENCH_RG,
    path.join(repo, 'node_modules/@vscode/ripgrep/bin', exe),
    path.join(repo, '.cache/real-vscode/cs/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin', exe),
    path.join(
      repo,
      `.cache/real-vscode/cs/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep-universal/bin/${process.platform}-${process.arch}`,
      exe,
    ),
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((d) => path.join(d, exe)),
  ].filter((p): p is string => !!p);
  return candidates.find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

const RG = findRipgrep();
function rg(): string {
  if (!RG) {
    assert.fail(
      'No ripgrep binary: the ripgrep backend cannot be tested. Install ripgrep (e.g. apt-get install ripgrep), run node scripts/setup-real-vscode.mjs, or set FORGE_RG=/path/to/rg.',
    );
  }
  return RG;
}

function tools(sandbox: WorkspaceSandbox, search?: SearchBackend) {
  const applier = new FsEditApplier(sandbox.fs);
  return {
    applier,
    read: createReadFileTool(sandbox) as unknown as Tool,
    write: createWriteFileTool(sandbox, applier) as unknown as Tool,
    diff: createApplyDiffTool(sandbox, applier) as unknown as Tool,
    list: createListFilesTool(sandbox) as unknown as Tool,
    search: createSearchFilesTool(sandbox, search) as unknown as Tool,
  };
}

const GIT_VARIANTS = [
  '.git/config',
  '.GIT/config',
  '.Git/hooks/pre-commit',
  'sub/.git/config',
  'sub/.GiT/HEAD',
  './.git/../.git/HEAD',
  'src/../.git/HEAD',
  '.git',
  '.GIT',
  '/ws/.git/config',
  '/ws/.GIT/objects/ab',
  '.g\u200cit/config',
  '.git/new-file',
];

describe('file safety: .git in any letter case', () => {
  const mem = () =>
    new MemoryFs(['/ws'], { '.git/config': '[core]', '.git/HEAD': 'ref', 'sub/.git/config': 'x', 'src/a.ts': 'a' });
  const sb = (opts: Partial<SandboxOptions> = {}) =>
    new WorkspaceSandbox(mem(), { trusted: true, platform: 'posix', ...opts });

  for (const access of ['read', 'write', 'list'] as const) {
    it(`refuses every variant for ${access}, telling the model to use git commands`, async () => {
      for (const p of GIT_VARIANTS) {
        const r = await sb().resolve(p, access);
        assert.equal(r.ok, false, `${access} ${p}`);
        if (!r.ok) {
          assert.equal(r.code, 'git-internal', `${access} ${p}`);
          assert.match(r.reason, /git commands/);
        }
      }
      // Lookalikes that are not .git stay usable.
      for (const p of ['.github/workflows/ci.yml', '.gitignore', 'src/.gitkeep', 'git/x', '.git-blame-ignore-revs']) {
        assert.ok((await sb().resolve(p, access === 'list' ? 'read' : access)).ok, `${access} ${p}`);
      }
    });
  }

  it('refuses .git even with allowSecrets, and the 8.3 name GIT~1 on Windows', async () => {
    assert.equal((await sb({ allowSecrets: true }).resolve('.GIT/config', 'read')).ok, false);
    const win = new WorkspaceSandbox(new MemoryFs(['/ws']), { trusted: true, platform: 'win32' });
    for (const p of ['GIT~1/config', 'sub\\.Git\\config']) {
      const r = await win.resolve(p, 'read');
      assert.ok(!r.ok && r.code === 'git-internal', p);
    }
  });

  it('read_file, write_file, apply_diff and list_files all refuse it', async () => {
    const fs = mem();
    const t = tools(new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }));
    for (const p of ['.GIT/config', '.git/config', 'sub/.Git/config']) {
      for (const [tool, args] of [
        [t.read, { path: p }],
        [t.write, { path: p, content: 'x' }],
        [t.diff, { path: p, blocks: [{ search: '[core]', replace: 'x' }] }],
      ] as const) {
        const r = await call(tool, args);
        assert.equal(r.isError, true, `${tool.name} ${p}`);
        assert.match(r.content, /^Refused: .*\.git.*git commands/, `${tool.name} ${p}`);
      }
    }
    const l = await call(t.list, { path: '.Git' });
    assert.match(l.content, /^Refused: /);
    assert.equal(fs.get('.git/config'), '[core]');
  });
});

describe('file safety: secrets and .forgeignore, any letter case', () => {
  const files = {
    '.env': 'K=1',
    '.forgeignore': 'private/\n*.log\nsrc/hidden.ts\n',
    'private/notes.md': 'n',
    'x.log': 'l',
    'src/hidden.ts': 'h',
    'src/a.ts': 'a',
    '.NPMRC': '//r/:_authToken=abc',
    'keys/Id_Rsa': 'k',
    'certs/SERVER.PEM': 'k',
    '.ssh/config': 'Host x',
  };
  const sb = () => new WorkspaceSandbox(new MemoryFs(['/ws'], files), { trusted: true, platform: 'posix' });

  it('case variants of secret names and ignored paths are refused (the ignore matcher ignores case)', async () => {
    for (const [p, code] of [
      ['.ENV', 'secret'],
      ['.Env.Local', 'secret'],
      ['keys/Id_Rsa', 'secret'],
      ['certs/SERVER.PEM', 'secret'],
      ['.NPMRC', 'secret'],
      ['.SSH/config', 'secret'],
      ['PRIVATE/notes.md', 'ignored'],
      ['X.LOG', 'ignored'],
      ['SRC/Hidden.ts', 'ignored'],
    ] as const) {
      for (const access of ['read', 'write'] as const) {
        const r = await sb().resolve(p, access);
        assert.ok(!r.ok && r.code === code, `${access} ${p}: ${JSON.stringify(r)}`);
      }
    }
  });

  it('listing an ignored or secret folder is refused (judged as a folder), not answered with an empty list', async () => {
    for (const p of ['private', 'PRIVATE', '.ssh', 'private/']) {
      const r = await sb().resolve(p, 'list');
      assert.equal(r.ok, false, p);
    }
    const t = tools(sb());
    assert.match((await call(t.list, { path: 'private' })).content, /^Refused: .*forgeignore/);
    assert.match((await call(t.search, { pattern: 'n', path: 'private' })).content, /^Refused: .*forgeignore/);
    assert.ok((await sb().resolve('src', 'list')).ok);
  });

  it('list_files hides secret and ignored names (an .npmrc only when it holds a token), recursive or not', async () => {
    const t = tools(
      new WorkspaceSandbox(
        new MemoryFs(['/ws'], { ...files, 'ok/.npmrc': 'save-exact=true', '.GIT/config': 'x', 'sub/.Git/HEAD': 'x' }),
        { trusted: true, platform: 'posix' },
      ),
    );
    for (const recursive of [false, true]) {
      const entries = ((await call(t.list, { recursive })).data as { entries: string[] }).entries;
      for (const gone of [
        '.env',
        '.NPMRC',
        'private/',
        'x.log',
        'src/hidden.ts',
        'keys/Id_Rsa',
        'certs/SERVER.PEM',
        '.ssh/',
        '.GIT/',
        'sub/.Git/',
      ]) {
        assert.ok(!entries.includes(gone), `${recursive} ${gone}: ${entries.join(' ')}`);
      }
      assert.ok(
        entries.includes('.forgeignore') && entries.includes(recursive ? 'src/a.ts' : 'src/'),
        entries.join(' '),
      );
      if (recursive)
        assert.ok(
          entries.includes('ok/.npmrc') && entries.includes('keys/') && entries.includes('sub/'),
          entries.join(' '),
        );
    }
  });
});

describe('file safety: symlinks and multi-root', () => {
  it("a link into .git (file or folder) is refused; walking a linked folder applies the target folder's rules", async () => {
    const fs = new MemoryFs(['/ws'], {
      '.git/config': 'needle git',
      '.forgeignore': 'src/hidden.ts\n',
      'src/hidden.ts': 'needle hidden',
      'src/a.ts': 'needle a',
    });
    fs.symlink('/ws/.git/config', '/ws/gitconfig.txt');
    fs.symlink('/ws/.git', '/ws/gitdir');
    fs.symlink('/ws/src', '/ws/alias');
    const sandbox = new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' });
    for (const [p, access] of [
      ['gitconfig.txt', 'read'],
      ['gitconfig.txt', 'write'],
      ['gitdir/config', 'read'],
      ['gitdir', 'list'],
      ['alias/hidden.ts', 'read'],
    ] as const) {
      const r = await sandbox.resolve(p, access);
      assert.equal(r.ok, false, `${access} ${p}`);
    }
    const t = tools(sandbox);
    const l = await call(t.list, { path: 'alias' });
    assert.deepEqual((l.data as { entries: string[] }).entries, ['a.ts']);
    const s = await call(t.search, { pattern: 'needle', path: 'alias', contextLines: 0 });
    assert.match(s.content, /a\.ts:1: needle a/);
    assert.doesNotMatch(s.content, /hidden|git/);
    const all = await call(t.search, { pattern: 'needle', contextLines: 0 });
    assert.doesNotMatch(all.content, /needle (hidden|git)/);
  });

  it("multi-root: a link from one folder into another is judged by the other folder's .forgeignore and .git", async () => {
    const fs = new MemoryFs(['/w/app', '/w/lib'], {
      '/w/lib/.forgeignore': 'private/\n',
      '/w/lib/private/k.txt': 'k',
      '/w/lib/.git/config': 'c',
      '/w/lib/ok.ts': 'ok',
    });
    fs.symlink('/w/lib/private/k.txt', '/w/app/k.txt');
    fs.symlink('/w/lib/.git/config', '/w/app/cfg');
    fs.symlink('/w/lib/ok.ts', '/w/app/ok.ts');
    const sandbox = new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' });
    const k = await sandbox.resolve('k.txt', 'read');
    assert.ok(!k.ok && k.code === 'ignored', JSON.stringify(k));
    const c = await sandbox.resolve('cfg', 'read');
    assert.ok(!c.ok && c.code === 'git-internal', JSON.stringify(c));
    assert.ok((await sandbox.resolve('ok.ts', 'read')).ok);
    for (const p of ['lib/.GIT/config', 'lib/private/k.txt', '/w/lib/.git'])
      assert.equal((await sandbox.resolve(p, 'read')).ok, false, p);
  });
});

/**
 * A real tree with the needle in every class of file the tools must not reveal, and in three that are fine.
 * Linux is case-sensitive, so .git and .GIT are different folders here: both must stay hidden.
 */
function hostileTree(): { base: string; ws: string; allowed: string[] } {
  const base = fs.mkdtempSync(path.join(tmpdir(), 'forge-safety-'));
  const ws = path.join(base, 'ws');
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    fs.writeFileSync(path.join(base, rel), text);
  };
  put('ws/src/ok.ts', 'before\nneedle ok\nafter\n');
  put('ws/ok/.npmrc', 'save-exact=true\nneedle npmrc-ok\n');
  put('ws/README.md', 'needle readme\n');
  put('ws/.env', 'TOKEN=needle-env\nNEXT=context-env\n');
  put('ws/.Env.production', 'needle env-prod\n');
  put('ws/.npmrc', '//registry/:_authToken=abc\nneedle npmrc-token\n');
  put('ws/keys/id_ed25519', 'needle key\n');
  put('ws/certs/Server.PEM', 'needle pem\n');
  put('ws/.git/config', 'needle git-config\n');
  put('ws/.GIT/HEAD', 'needle GIT-head\n');
  put('ws/sub/.Git/hooks/pre-commit', 'needle Git-hook\n');
  put('ws/.forgeignore', 'private/\nsrc/anchored.ts\n*.log\nbuild/\n');
  put('ws/private/deep/x.txt', 'needle private\n');
  put('ws/src/anchored.ts', 'needle anchored\n');
  put('ws/app.LOG', 'needle log\n');
  put('ws/pkg/build/out.txt', 'needle nested-build\n');
  put('outside/leak.txt', 'needle outside\n');
  fs.symlinkSync(path.join(base, 'outside', 'leak.txt'), path.join(ws, 'leak.txt'));
  fs.symlinkSync(path.join(base, 'outside'), path.join(ws, 'outdir'));
  fs.symlinkSync(path.join(ws, '.env'), path.join(ws, 'env-link.txt'));
  fs.symlinkSync(path.join(ws, '.git', 'config'), path.join(ws, 'git-link.txt'));
  fs.symlinkSync(path.join(ws, 'src'), path.join(ws, 'src-alias'));
  return { base, ws, allowed: ['src/ok.ts', 'ok/.npmrc', 'README.md'] };
}

describe('file safety: search_files never returns text from a refused file, on both backends', function () {
  if (process.platform === 'win32') return; // symlinks need privileges there
  let tree: ReturnType<typeof hostileTree>;
  before(() => (tree = hostileTree()));
  after(() => tree && fs.rmSync(tree.base, { recursive: true, force: true }));

  const backends: [string, () => SearchBackend | undefined][] = [
    ['JS walker', () => undefined],
    ['ripgrep', () => new RipgrepSearch(rg())],
  ];
  const sandbox = () => new WorkspaceSandbox(new NodeWorkspaceFs([tree.ws]), { trusted: true });
  const FORBIDDEN =
    /needle-env|context-env|env-prod|npmrc-token|needle key|needle pem|git-config|GIT-head|Git-hook|needle private|anchored|needle log|nested-build|outside/;

  for (const [name, backend] of backends) {
    it(`${name}: only readable files, with exact totals, whatever the glob`, async () => {
      const t = tools(sandbox(), backend());
      for (const glob of [undefined, '*', '.*', '**', '**/*', '*.txt', '**/.git/**', '**/config']) {
        const r = await call(t.search, { pattern: 'needle|TOKEN', contextLines: 2, ...(glob ? { glob } : {}) });
        assert.doesNotMatch(r.content, FORBIDDEN, `${glob}: ${r.content}`);
        if (!glob || glob === '*' || glob === '**' || glob === '**/*') {
          for (const f of tree.allowed)
            assert.match(r.content, new RegExp(f.replace(/\./g, '\\.') + ':'), `${glob}: ${r.content}`);
          assert.equal((r.data as { totalMatches: number }).totalMatches, 3, `${glob}: ${r.content}`);
        }
      }
    });

    it(`${name}: a refused file's matches never count, even past maxResults`, async () => {
      const t = tools(sandbox(), backend());
      const r = await call(t.search, { pattern: 'needle', maxResults: 1, contextLines: 0 });
      const d = r.data as { totalMatches: number; totalIsLowerBound: boolean };
      assert.ok(d.totalMatches <= 3, JSON.stringify(d));
      if (name === 'ripgrep') assert.deepEqual(d, { totalMatches: 3, returned: 1, totalIsLowerBound: false });
      // A pattern that matches only inside refused files finds nothing at all.
      const only = await call(t.search, {
        pattern: 'needle-env|npmrc-token|git-config|GIT-head|needle anchored|nested-build|needle key',
        contextLines: 5,
      });
      assert.match(only.content, /^No matches/, only.content);
      assert.equal((only.data as { totalMatches: number }).totalMatches, 0);
    });

    it(`${name}: searching a refused path is refused; a linked folder is searched under its target's rules`, async () => {
      const t = tools(sandbox(), backend());
      for (const p of [
        '.git',
        '.GIT',
        'sub/.Git',
        'private',
        'PRIVATE/deep',
        'outdir',
        'leak.txt',
        'env-link.txt',
        'git-link.txt',
        '.env',
        'src/anchored.ts',
      ]) {
        const r = await call(t.search, { pattern: 'needle', path: p });
        assert.match(r.content, /^Refused: /, `${p}: ${r.content}`);
      }
      const alias = await call(t.search, { pattern: 'needle', path: 'src-alias', contextLines: 0 });
      assert.match(alias.content, /ok\.ts:2: needle ok/);
      assert.doesNotMatch(alias.content, FORBIDDEN, alias.content);
    });
  }

  it('ripgrep backend on its own: admit() is asked per file before any of its lines count', async () => {
    const backend = new RipgrepSearch(rg());
    const asked: string[] = [];
    const q = {
      pattern: 'needle',
      caseSensitive: false,
      paths: [path.join(tree.ws, 'src')],
      contextLines: 1,
      maxResults: 10,
      signal: new AbortController().signal,
      admit: async (p: string) => {
        asked.push(p);
        return !p.endsWith('anchored.ts');
      },
    };
    const r = await backend.search(q);
    assert.deepEqual(
      r.matches.map((m) => path.relative(tree.ws, m.path)),
      ['src/ok.ts'],
    );
    assert.equal(r.totalMatches, 1);
    assert.deepEqual(asked.map((p) => path.relative(tree.ws, p)).sort(), ['src/anchored.ts', 'src/ok.ts']);
    // Anchored .forgeignore patterns reach rg itself (it runs in the ignore file's folder, with relative paths).
    const withIgnore = await backend.search({
      ...q,
      admit: undefined,
      ignoreFiles: [path.join(tree.ws, '.forgeignore')],
    });
    assert.deepEqual(
      withIgnore.matches.map((m) => m.path),
      [path.join(tree.ws, 'src', 'ok.ts')],
    );
    // .git in any letter case is never entered, even when the caller's glob would whitelist it.
    const git = await backend.search({ ...q, admit: undefined, paths: [tree.ws], glob: '**' });
    assert.doesNotMatch(git.matches.map((m) => m.path).join('\n'), /\.git\//i);
  });

  it('list_files on the real tree shows no refused name', async () => {
    const t = tools(sandbox());
    const entries = ((await call(t.list, { recursive: true, maxEntries: 5000 })).data as { entries: string[] }).entries;
    for (const gone of [
      '.env',
      '.Env.production',
      '.npmrc',
      'keys/id_ed25519',
      'certs/Server.PEM',
      '.git/',
      '.GIT/',
      'sub/.Git/',
      'private/',
      'src/anchored.ts',
      'app.LOG',
      'pkg/build/',
      'leak.txt',
      'outdir/',
      'env-link.txt',
      'git-link.txt',
    ]) {
      assert.ok(!entries.includes(gone), `${gone}: ${entries.join(' ')}`);
    }
    for (const kept of ['src/ok.ts', 'ok/.npmrc', 'README.md']) assert.ok(entries.includes(kept), kept);
  });
});

describe('file safety: edits refused before anyone is asked (prepare)', () => {
  const files = () => ({
    'a.txt': 'a\n',
    '.env': 'K=1',
    '.git/config': '[core]',
    'img.png': new Uint8Array([0x89, 0x50, 0, 0, 1]),
    'dir/x.txt': 'x',
    '.forgeignore': 'private/\n',
  });

  it("write_file and apply_diff prepare returns execute()'s own refusal, and nothing for a fine target", async () => {
    const fs = new MemoryFs(['/ws'], files());
    const t = tools(new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }));
    const cases: [Tool, unknown, RegExp][] = [
      [t.write, { path: '.env', content: 'x' }, /Refused: .*secret/],
      [t.write, { path: '.ENV', content: 'x' }, /Refused: .*secret/],
      [t.write, { path: '.GIT/config', content: 'x' }, /Refused: .*git commands/],
      [t.write, { path: 'private/new.txt', content: 'x' }, /Refused: .*forgeignore/],
      [t.write, { path: '../out.txt', content: 'x' }, /Refused: .*workspace/],
      [t.write, { path: 'img.png', content: 'x' }, /binary file/],
      [t.write, { path: 'dir', content: 'x' }, /is a directory/],
      [t.diff, { path: '.env', blocks: [{ search: 'K=1', replace: 'K=2' }] }, /Refused: .*secret/],
      [t.diff, { path: 'sub/.Git/config', blocks: [{ search: 'a', replace: 'b' }] }, /Refused: .*git commands/],
      [t.diff, { path: 'missing.txt', blocks: [{ search: 'a', replace: 'b' }] }, /File not found/],
      [t.diff, { path: 'img.png', blocks: [{ search: 'a', replace: 'b' }] }, /binary file/],
    ];
    for (const [tool, args, re] of cases) {
      const input = tool.input.parse(args);
      const pre = await refusalOf(tool, input, ctx());
      assert.ok(pre, `${tool.name} ${JSON.stringify(args)}: prepare let it through`);
      assert.match(pre.content, re);
      const exec = await tool.execute(input, ctx());
      assert.deepEqual(pre, exec, 'the same refusal as execute()');
    }
    assert.equal(await refusalOf(t.write, t.write.input.parse({ path: 'new/b.txt', content: 'b' }), ctx()), undefined);
    assert.equal(
      await refusalOf(t.diff, t.diff.input.parse({ path: 'a.txt', blocks: [{ search: 'nope', replace: 'b' }] }), ctx()),
      undefined,
      'no diff is computed in prepare',
    );
    const untrusted = tools(
      new WorkspaceSandbox(new MemoryFs(['/ws'], files()), { trusted: false, platform: 'posix' }),
    );
    assert.match(
      (await refusalOf(untrusted.write, untrusted.write.input.parse({ path: 'a.txt', content: 'b' }), ctx()))!.content,
      /not trusted/,
    );
  });

  it('prepare reads only the head of a big file', async () => {
    let whole = 0;
    const mem = new MemoryFs(['/ws'], { 'big.txt': 'x'.repeat(1024 * 1024) });
    const counting: WorkspaceFs = Object.assign(Object.create(mem), {
      readFile: (p: string) => {
        whole++;
        return mem.readFile(p);
      },
      readFileHead: (p: string, n: number) => mem.readFileHead(p, n),
    });
    const t = tools(new WorkspaceSandbox(counting, { trusted: true, platform: 'posix' }));
    assert.equal(
      await refusalOf(t.diff, t.diff.input.parse({ path: 'big.txt', blocks: [{ search: 'x', replace: 'y' }] }), ctx()),
      undefined,
    );
    assert.equal(whole, 0);
  });

  it('through the real loop: refused writes never reach the approver, a fine one does', async () => {
    const fs = new MemoryFs(['/ws'], files());
    const t = tools(new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }));
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const h = harness(
      [
        // The fine write first: three refusals in a row end the run (the loop's denial guardrail).
        callsTurn(['write_file', { path: 'a.txt', content: 'b\n' }]),
        callsTurn(['write_file', { path: '.env', content: 'K=2' }]),
        callsTurn(['write_file', { path: '.Git/hooks/pre-commit', content: 'evil' }]),
        callsTurn(['apply_diff', { path: 'missing.ts', blocks: [{ search: 'a', replace: 'b' }] }]),
        doneTurn(),
      ],
      { tools: [t.read, t.write, t.diff] },
      approver,
    );
    await h.agent.send('go');
    assert.equal(approver.requests.length, 1, 'only the fine write was asked about');
    assert.equal(approver.requests[0]!.toolName, 'write_file');
    assert.deepEqual(approver.requests[0]!.preview, {
      kind: 'edit',
      path: '/ws/a.txt',
      displayPath: 'a.txt',
      original: 'a\n',
      proposed: 'b\n',
      isNewFile: false,
    });
    const results = h.ofType('tool_result').map((e) => e.content);
    assert.match(results[0]!, /^Wrote a\.txt/);
    assert.match(results[1]!, /^Refused: .*secret/);
    assert.match(results[2]!, /^Refused: .*git commands/);
    assert.match(results[3]!, /File not found/);
    assert.equal(h.ofType('approval_requested').length, 1);
    assert.equal(fs.get('.env'), 'K=1');
    assert.equal(fs.get('a.txt'), 'b\n');
    assert.equal(t.applier.applied.length, 1);
  });
});
