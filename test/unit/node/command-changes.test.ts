import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { changedFiles, fingerprint, watchCommandChanges } from '../../../src/node/command-changes';
import type { CommandRunner, RunRequest } from '../../../src/core/workspace/types';

const req = (over: Partial<RunRequest> = {}): RunRequest => ({
  command: 'x',
  cwd: '/',
  timeoutMs: 1000,
  signal: new AbortController().signal,
  taskId: 't',
  toolCallId: 'c1',
  ...over,
});

function fakeRunner(effect: () => Promise<void>): CommandRunner {
  return {
    async run() {
      await effect();
      return { exitCode: 0, output: '', timedOut: false } as never;
    },
    containment: () => ({ kind: 'none', summary: 'none', network: 'on' }),
  };
}

describe('node: command changes', () => {
  let ws: string;
  beforeEach(async () => {
    ws = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-cmdchg-'));
    await fsp.mkdir(path.join(ws, 'src'));
    await fsp.writeFile(path.join(ws, 'src', 'a.ts'), 'a');
    await fsp.writeFile(path.join(ws, 'keep.txt'), 'k');
  });
  afterEach(() => fsp.rm(ws, { recursive: true, force: true }));

  it('outside git: a bounded walk sees created, modified and deleted files; skips node_modules', async () => {
    const seen: unknown[][] = [];
    const runner = watchCommandChanges(
      fakeRunner(async () => {
        await fsp.writeFile(path.join(ws, 'new.txt'), 'n');
        await fsp.writeFile(path.join(ws, 'src', 'a.ts'), 'a changed, longer');
        await fsp.rm(path.join(ws, 'keep.txt'));
        await fsp.mkdir(path.join(ws, 'node_modules'));
        await fsp.writeFile(path.join(ws, 'node_modules', 'x.js'), 'x');
      }),
      () => [ws],
      (...a) => seen.push(a),
    );
    await runner.run(req());
    assert.deepEqual(seen, [
      ['t', 'c1', [path.join(ws, 'keep.txt'), path.join(ws, 'new.txt'), path.join(ws, 'src', 'a.ts')].sort(), 0],
    ]);
    assert.ok(runner.containment, 'containment is forwarded');
  });

  it('in a git repository: git status, including a second change to an already modified file', async () => {
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=n', 'add', '.'], { cwd: ws });
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=n', 'commit', '-qm', 'init'], { cwd: ws });
    await fsp.writeFile(path.join(ws, 'src', 'a.ts'), 'dirty before');
    const before = await fingerprint([ws]);
    assert.ok(before?.has(path.join(ws, 'src', 'a.ts')));
    assert.equal(before?.has(path.join(ws, 'keep.txt')), false, 'clean files are not listed');
    await new Promise((r) => setTimeout(r, 20));
    await fsp.writeFile(path.join(ws, 'src', 'a.ts'), 'dirty again, longer now');
    await fsp.writeFile(path.join(ws, 'keep.txt'), 'changed');
    const after = await fingerprint([ws]);
    assert.deepEqual(changedFiles(before!, after!), [path.join(ws, 'keep.txt'), path.join(ws, 'src', 'a.ts')]);
  });

  it('gives up (reports nothing) past its bounds, and does nothing without a task and tool call', async () => {
    assert.equal(await fingerprint([ws], { maxFiles: 1 }), undefined);
    let calls = 0;
    const runner = watchCommandChanges(
      fakeRunner(async () => fsp.writeFile(path.join(ws, 'n'), '1')),
      () => [ws],
      () => calls++,
    );
    await runner.run(req({ toolCallId: undefined }));
    assert.equal(calls, 0);
  });
});
