// `npm start`'s first run installs code-server for minutes: every long step says what it does and how long it
// takes before it starts, then reports progress while it runs (issue 26, item 13).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('scripts/lib/progress runWithProgress', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'forge-progress-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('says what and how long first, then time and folder size while the step runs', async () => {
    const { runWithProgress } = await import('../../../scripts/lib/progress.mjs');
    const lines: string[] = [];
    // A step that fills the folder with 3 MB over ~600 ms, like npm filling node_modules.
    const script =
      "const fs=require('fs');let i=0;const t=setInterval(()=>{fs.writeFileSync(process.argv[1]+'/f'+i,Buffer.alloc(1e6));if(++i===3){clearInterval(t);console.log('ok')}},200)";
    const out = await runWithProgress(process.execPath, ['-e', script, dir], {
      what: 'installing the thing',
      estimate: 'about a second',
      watchDir: dir,
      everyMs: 150,
      log: (m: string) => lines.push(m),
    });
    assert.match(out, /ok/);
    assert.equal(lines[0], 'installing the thing (about a second)...', 'announced before it runs');
    const ticks = lines.filter((l) => /^ {2}\.\.\. installing the thing: \d+ s, \d+ MB so far$/.test(l));
    assert.ok(ticks.length >= 2, `progress lines while it runs:\n${lines.join('\n')}`);
    assert.match(ticks.at(-1)!, /[1-3] MB so far/, 'the folder size grows in the progress lines');
    assert.match(lines.at(-1)!, /^installing the thing: done in \d+ s$/);
  });

  it('rejects with the output tail when the step fails', async () => {
    const { runWithProgress } = await import('../../../scripts/lib/progress.mjs');
    await assert.rejects(
      runWithProgress(process.execPath, ['-e', "console.error('no network');process.exit(3)"], {
        what: 'x',
        log: () => {},
      }),
      /exited 3\nno network/,
    );
  });
});

describe('scripts/lib/progress step lines', () => {
  it('says elapsed time in seconds, then minutes and seconds past a minute', async () => {
    const { formatElapsed } = await import('../../../scripts/lib/progress.mjs');
    assert.deepEqual([0, 400, 12_300, 59_400, 60_000, 90_200, 185_000, 180_000].map(formatElapsed), [
      '0 s',
      '0 s',
      '12 s',
      '59 s',
      '1 min',
      '1 min 30 s',
      '3 min 5 s',
      '3 min',
    ]);
  });

  it('announces what and how long, reports time and size while it runs, and when it is done', async () => {
    const { stepLines } = await import('../../../scripts/lib/progress.mjs');
    const what = '[setup-real-vscode] installing code-server 4.139.1 (about 600 MB, once)';
    assert.equal(stepLines.start(what, 'usually one to three minutes'), `${what} (usually one to three minutes)...`);
    assert.equal(stepLines.start('apt-get update'), 'apt-get update...');
    assert.equal(stepLines.tick(what, 95_000, 312_400_000), `  ... ${what}: 1 min 35 s, 312 MB so far`);
    assert.equal(stepLines.tick('apt-get update', 5_000), '  ... apt-get update: 5 s');
    assert.equal(stepLines.tick('npm', 5_000, 0), '  ... npm: 5 s, 0 MB so far');
    assert.equal(stepLines.done(what, 132_000), `${what}: done in 2 min 12 s`);
  });
});
