// Shell and REPL histories hold every token pasted on a command line and every password typed at a database
// prompt: hidden from contained commands (the sandbox masks them), asked before a command names them, and
// refused by the file tools wherever they are (a home folder opened as the workspace, a dotfiles repository).
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checkCommand, DEFAULT_COMMAND_RULES } from '../../../../src/core/safety/commands';
import { WorkspaceSandbox } from '../../../../src/core/safety/paths';
import { HOME_SECRET_PATHS } from '../../../../src/core/safety/secrets';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { homeSecrets } from '../../../../src/node/sandbox/secret-locations';

const HISTORIES = [
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  '.viminfo',
  '.rediscli_history',
  '.irb_history',
  '.history',
  '.sh_history',
];

describe('safety/secrets: shell and REPL histories', () => {
  it('are secret locations under the home folder', () => {
    for (const h of HISTORIES) assert.ok(HOME_SECRET_PATHS.includes(h), h);
    for (const d of ['.bash_sessions/', '.zsh_sessions/', '.local/share/atuin/'])
      assert.ok(HOME_SECRET_PATHS.includes(d), d);
  });

  it('the sandbox finds the ones that exist, to mask them', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'forge-home-'));
    try {
      for (const h of HISTORIES) {
        mkdirSync(path.dirname(path.join(home, h)), { recursive: true });
        writeFileSync(path.join(home, h), 'export API_TOKEN=secret\n');
      }
      mkdirSync(path.join(home, '.zsh_sessions'));
      const masked = (await homeSecrets(home)).map((m) => path.relative(home, m.path));
      for (const h of [...HISTORIES, '.zsh_sessions'])
        assert.ok(masked.includes(h), `${h} is not masked (${masked.join(', ')})`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a command that reads one asks, even an allow-listed one inside the sandbox', () => {
    for (const cmd of [
      'cat ~/.bash_history',
      'tail -n 100 ~/.zsh_history',
      'grep -i token ~/.psql_history',
      'head /home/dev/.local/share/fish/fish_history',
      'cat ~/.python_history ~/.node_repl_history',
      'head -c 100 ~/.viminfo',
      'cat ~/.*_history',
    ]) {
      const v = checkCommand(cmd, DEFAULT_COMMAND_RULES, {
        sandboxed: true,
        home: '/home/dev',
        roots: ['/home/dev/project'],
      });
      assert.equal(v.action, 'ask', `${cmd}: ${v.reason}`);
      assert.match(v.reason, /secret/, cmd);
    }
  });

  it('the file tools refuse them in a workspace (a home folder opened as one)', async () => {
    const files = Object.fromEntries([...HISTORIES.filter((h) => h !== '.history'), 'src/a.ts'].map((f) => [f, 'x']));
    const sb = new WorkspaceSandbox(new MemoryFs(['/home/dev'], files), { trusted: true, platform: 'posix' });
    for (const h of HISTORIES.filter((x) => x !== '.history')) {
      const r = await sb.resolve(h, 'read');
      assert.equal(r.ok, false, h);
      if (!r.ok) assert.equal(r.code, 'secret', h);
    }
    assert.ok((await sb.resolve('src/a.ts', 'read')).ok);
  });
});
