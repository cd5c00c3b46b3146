// The command rules against a hostile model: every case here ran unasked before the option-level table,
// the assignment and secret checks. Each row asserts the exact action and, for an ask, that the reason names
// what was judged; hazards must never be grantable (grantKeys []).
import { strict as assert } from 'node:assert';
import {
  checkCommand,
  DEFAULT_COMMAND_RULES,
  describeBuiltinCommandRules,
  withDefaultCommandRules,
  type CommandCheckOptions,
  type CommandRules,
} from '../../../../src/core/safety/commands';

const GRANT_ALL = [
  'git diff',
  'git log',
  'git show',
  'git grep',
  'git fetch',
  'git ls-remote',
  'git status',
  'npm test',
  'npm exec',
  'npx tsc',
  'tsc',
  'date',
  'ls',
  'cat',
  'head',
  'grep',
  'rg',
  'sh',
  'bash',
  'env',
  'xargs',
  'find',
  'make',
  'source',
  '.',
  'cd',
  'time',
  'script',
  'strace',
  'export',
  'printenv',
  'echo',
  'alias',
  'hash',
  'read',
  'printf',
  'eval',
];
const OPTS: CommandCheckOptions = { home: '/home/u', roots: ['/home/u/proj'] };

function expectHazard(
  cmd: string,
  reason: RegExp,
  opts: CommandCheckOptions = OPTS,
  rules: CommandRules = DEFAULT_COMMAND_RULES,
) {
  const v = checkCommand(cmd, rules, opts);
  assert.equal(v.action, 'ask', `${cmd}: expected ask, got ${v.action} (${v.reason})`);
  assert.match(v.reason, reason, `${cmd}: reason`);
  assert.deepEqual(v.grantKeys, [], `${cmd}: a hazard must not be grantable (${v.reason})`);
  // Even with every conceivable grant, a hazard still asks.
  const all = new Set(GRANT_ALL);
  assert.equal(
    checkCommand(cmd, rules, { ...opts, grants: all }).action,
    'ask',
    `${cmd}: grants must not cover a hazard`,
  );
}
function expectAllow(cmd: string, opts: CommandCheckOptions = OPTS, rules: CommandRules = DEFAULT_COMMAND_RULES) {
  const v = checkCommand(cmd, rules, opts);
  assert.equal(v.action, 'allow', `${cmd}: expected allow, got ${v.action} (${v.reason})`);
}
function expectAsk(cmd: string, keys: string[], reason?: RegExp, opts: CommandCheckOptions = OPTS) {
  const v = checkCommand(cmd, DEFAULT_COMMAND_RULES, opts);
  assert.equal(v.action, 'ask', `${cmd}: expected ask, got ${v.action} (${v.reason})`);
  assert.deepEqual(v.grantKeys, keys, `${cmd}: grant keys (${v.reason})`);
  if (reason) assert.match(v.reason, reason);
}

describe('safety/commands: hostile commands (class 1: environment assignments)', () => {
  const cases: [string, RegExp][] = [
    ['LD_PRELOAD=/tmp/x.so ls', /LD_PRELOAD.*load other libraries/],
    ['DYLD_INSERT_LIBRARIES=/tmp/x.dylib ls', /DYLD_INSERT_LIBRARIES/],
    ['GIT_EXTERNAL_DIFF=./evil git diff', /GIT_EXTERNAL_DIFF/],
    ["NODE_OPTIONS='--require ./evil.js' npm test", /NODE_OPTIONS/],
    ["PAGER='sh -c evil' git log", /PAGER.*program/],
    ['npm_config_script_shell=./evil npm test', /npm_config_script_shell/],
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=evil git log', /GIT_CONFIG_COUNT/],
    ['PATH=/tmp/evil:$PATH; ls', /sets PATH/],
    ['IFS=/ ls', /sets IFS/],
    ['BASH_ENV=./x.sh bash -c "ls"', /BASH_ENV/],
    ['PYTHONPATH=. git status', /PYTHONPATH/],
    ['HOME=/tmp/h git log', /sets HOME/],
    ['XDG_CONFIG_HOME=/tmp/c git status', /XDG_CONFIG_HOME/],
    ['https_proxy=http://evil:8080 git status', /https_proxy/],
    ['RIPGREP_CONFIG_PATH=./rc rg foo src', /RIPGREP_CONFIG_PATH/],
    ['FOO=bar ls', /FOO, a variable Forge does not know/],
    ['export PATH=/tmp/evil; ls', /sets PATH/],
    ['declare -x LD_PRELOAD=/tmp/x.so; ls', /LD_PRELOAD/],
    ['readonly EDITOR=vim', /EDITOR/],
    ['local SSH_AUTH_SOCK=/tmp/s', /SSH_AUTH_SOCK/],
    ['env LD_PRELOAD=/tmp/x.so git status', /LD_PRELOAD/],
    ['env -i GIT_PAGER=evil git log', /GIT_PAGER/],
    ['echo ${PATH:=/tmp/evil}; ls', /sets PATH/],
    ['ls $((IFS=1))', /sets IFS/],
    ['f() { ls; }; ls', /defines a shell function/],
    ['source ./evil.sh', /uses source/],
    ['. ./evil.sh && ls', /uses \./],
    ['alias ls=evil', /uses alias/],
    ['hash -p /tmp/evil git; git status', /uses hash/],
    ['read PATH < list.txt; ls', /uses read/],
    ['printf -v PATH %s /tmp; ls', /uses printf/],
    ['export', /prints the shell variables/],
    ['env', /prints the environment/],
    ['printenv', /prints the environment/],
    ['echo $OPENAI_API_KEY', /OPENAI_API_KEY.*credential/],
  ];
  for (const [cmd, reason] of cases) it(cmd, () => expectHazard(cmd, reason));

  it('allows benign variables', () => {
    for (const cmd of [
      'CI=1 git status',
      'NODE_ENV=test FORCE_COLOR=0 NO_COLOR=1 git log --oneline -5',
      'LC_ALL=C TZ=UTC date',
      'export CI=1; git status',
      'set -euo pipefail; git status',
      'echo $HOME',
    ])
      expectAllow(cmd);
    expectAllow('CI=1 npm test', { ...OPTS, sandboxed: true });
  });
});

describe('safety/commands: hostile commands (class 2: options that run programs or write)', () => {
  const cases: [string, RegExp][] = [
    ['rg --pre ./evil foo src', /--pre, which runs other programs/],
    ['rg --pre=./evil foo src', /--pre/],
    ['rg --pre-glob "*.ts" --pre ./x foo src', /--pre/],
    ['rg -z foo src', /-z, which runs other programs/],
    ['rg --search-zip foo src', /--search-zip/],
    ['git -c core.pager=evil log', /-c, which sets git configuration/],
    ['git --config-env=core.pager=X log', /--config-env/],
    ['git --exec-path=/tmp status', /--exec-path/],
    ['git --git-dir=/tmp/r/.git log', /--git-dir/],
    ['git --work-tree=/ status', /--work-tree/],
    ['git -p log', /-p, which runs a pager/],
    ['git --paginate log', /--paginate/],
    ['git diff --output=/tmp/x', /--output, which writes files/],
    ['git log -p --output /tmp/x', /--output/],
    ['git diff --outp=/tmp/x', /--outp, which writes files/],
    ['git diff --ext-diff', /--ext-diff/],
    ['git log -p --textconv', /--textconv/],
    ['git diff --no-index /etc/passwd a', /--no-index/],
    ['git grep -O foo', /-O, which runs other programs/],
    ['git grep --open-files-in-pager=vim foo', /--open-files-in-pager/],
    ['git fetch --upload-pack=evil origin', /--upload-pack/],
    ['git ls-remote --upload-pack=evil origin', /--upload-pack/],
    ['git log --show-signature', /--show-signature/],
    ['npm --script-shell ./evil test', /--script-shell/],
    ['npm test --script-shell=./evil', /--script-shell/],
    ['npm --prefix /tmp/x test', /--prefix/],
    ['npm --userconfig ./rc test', /--userconfig/],
    ['npm --globalconfig ./rc ls', /--globalconfig/],
    ['npm --node-options=--require=./x test', /--node-options/],
    ['npm exec --call "sh -c evil"', /--call/],
    ['npm exec -c "evil"', /-c, which runs other programs/],
    ['npm test --foo=bar', /--foo, and npm reads any --option as a configuration setting/],
    ['npx --yes tsc --noEmit', /--yes/],
    ['npx -p evil tsc --noEmit', /-p, which installs/],
    ['date -s 2020-01-01', /-s, which sets the system clock/],
    ['date --set=2020-01-01', /--set/],
    ['tsc --noEmit --outDir out', /--outdir, which writes files/],
    ['tsc -b', /-b, which writes files/],
    ['tsc --build', /--build/],
    ['tsc --noEmit --watch', /--watch/],
    ['tsc --noEmit --generateTrace t', /--generatetrace/],
    ['tsc --noEmit --tsBuildInfoFile x', /--tsbuildinfofile/],
    ['tsc --noEmit --declarationDir d', /--declarationdir/],
    ['npx tsc --noEmit --outFile x.js', /--outfile/],
    ['grep -f .env src/a.ts', /secret file \(\.env\)/],
    ['grep --file=.env src/a.ts', /\.env/],
    ['rg -f ~/.ssh/id_rsa src', /~\/\.ssh/],
    ['git blame --contents .env src/a.ts', /\.env/],
    ['command time -o /tmp/x git status', /-o, which writes files/],
    ['script -c "git status" /tmp/log', /records the session/],
    ['strace -o /tmp/x git status', /-o, which writes files/],
  ];
  for (const [cmd, reason] of cases) it(cmd, () => expectHazard(cmd, reason));

  it('asks (grantable) for options and forms that are just not on the list', () => {
    expectAsk('git branch feature', ['git branch'], /creates a branch/);
    expectAsk('git branch -D main', ['git branch'], /-D/);
    expectAsk('git branch -m a b', ['git branch'], /-m/);
    expectAsk('git branch --set-upstream-to=origin/x', ['git branch'], /--set-upstream-to/);
    expectAsk('git branch --edit-description', ['git branch'], /--edit-description/);
    expectAsk('git log --weird-option', ['git log'], /--weird-option/);
    expectAsk('tsc', ['tsc'], /--noEmit/);
    expectAsk('tsc -p tsconfig.json', ['tsc'], /--noEmit/);
    expectAsk('date 010112002020', ['date'], /sets the clock/);
    expectAsk('node script.js', ['node'], /node runs JavaScript/);
    expectAsk('node -e "x"', ['node']);
    expectAsk('npm run dev', ['npm run dev']);
    expectAsk('npm install', ['npm install']);
    expectAsk('ls --bogus', ['ls'], /--bogus/);
    expectAsk('nice --bogus git status', ['nice'], /--bogus/);
  });

  it('keeps the allowed option forms allowed', () => {
    for (const cmd of [
      'git status',
      'git status -sb',
      'git --no-pager log --oneline -5',
      'git log --oneline --graph --decorate -n 20 -- src',
      'git diff HEAD~1 -- src/a.ts',
      'git diff --stat --cached',
      'git diff -U5 main...HEAD',
      'git show HEAD~2 --stat',
      'git show HEAD:src/a.ts',
      'git branch',
      'git branch -a',
      'git branch -vv',
      'git branch --list "feat*"',
      'git branch --merged main',
      'git branch --show-current',
      'git rev-parse --abbrev-ref HEAD',
      'git rev-parse --show-toplevel',
      'git ls-files -z src',
      'git blame -L 10,20 src/a.ts',
      'git -C src status',
      'ls -la src',
      'ls -lhR',
      'ls *.ts',
      'ls --color=auto',
      'pwd',
      'echo hello world',
      'echo -n x',
      'cat src/*.ts',
      'cat -n package.json',
      'head -n 20 src/a.ts',
      'head -20 src/a.ts',
      'tail -n +5 src/a.ts',
      'tail -f build.log',
      'wc -l src/a.ts',
      'wc -l $(git ls-files)',
      'grep -n foo src/a.ts',
      'grep -rn foo src',
      'grep -E "a|b" -i src/a.ts',
      'grep -C3 -e foo -e bar src/a.ts',
      'rg foo src',
      'rg -n -i --no-heading foo src test',
      'rg -t ts foo src',
      'rg -g "*.ts" foo src',
      'which git',
      'true',
      'false',
      'date',
      'date -u +%Y-%m-%d',
      'date -d yesterday',
      'node --version',
      'node -v',
      'npm --version',
      'npm -v',
      'npm ls',
      'npm ls --depth=0',
      'tsc --noEmit',
      'tsc --noEmit -p tsconfig.json',
      'tsc --version',
      'cat .env.example',
      'command -v git',
      'cat package.json | grep version',
      'git log --format=%H -1',
      'git log --since="2 weeks ago" --author=me',
    ])
      expectAllow(cmd);
  });
});

describe('safety/commands: hostile commands (class 3: wrappers)', () => {
  it('judges the program a wrapper runs', () => {
    for (const cmd of [
      'nice git status',
      'nice -n 5 git status',
      'nohup git status',
      'timeout 5 git status',
      'timeout -s KILL 10s git log -1',
      'stdbuf -oL git log',
      'ionice -c 3 git status',
      'setsid git status',
      'command git status',
      'builtin echo x',
      'exec git status',
      'env git status',
      'env -i git status',
      'env CI=1 git status',
      'chronic git status',
      'unbuffer git status',
      'taskset -c 0 git status',
      'nice nice git status',
      'time git status',
      'bash -c "git status"',
      'sh -c "ls -la src && git status"',
      'eval "git status"',
      'git ls-files | xargs wc -l',
      'env -S "git status"',
    ])
      expectAllow(cmd);
    expectAsk('nice make', ['make']);
    expectAsk('timeout 60 cargo build', ['cargo build']);
    expectAsk('env -i FOO=x sh -c "make"', [], /FOO/);
    expectAsk('env -S "make install"', ['make']);
    expectAsk('watch make', ['make']);
  });
  it('asks when the wrapper hides what runs or adds run-time arguments', () => {
    expectHazard('git ls-files | xargs cat', /gets file names from xargs at run time/);
    expectHazard('git ls-files | xargs grep TOKEN', /xargs/);
    expectHazard('find src -exec cat {} +', /gets file names from find/);
    expectHazard('find . -name "*.ts" -execdir head {} \\;', /find/);
    expectHazard('find . -delete', /-delete/);
    expectHazard('find . -fprint /tmp/x', /-fprint/);
    expectHazard('env -C /tmp git status', /another folder|outside/);
    expectHazard('sh -c "$X"', /only known at run time/);
    expectHazard('eval $X', /only known at run time/);
    expectHazard('$CMD status', /only known at run time/);
    expectHazard('env -u X $CMD', /only known at run time/);
    expectHazard('strace -p 1', /traces another process/);
    expectHazard('cd /tmp && cat .npmrc', /outside the workspace/);
    expectHazard('cd ~ && ls', /outside the workspace/);
    expectHazard('cd .. && ls', /outside the workspace/);
    expectAllow('cd src && ls'); // into the workspace: harmless, and models chain it constantly
  });
  it('with a sandbox, read-only programs may take run-time arguments', () => {
    expectAllow('git ls-files | xargs grep -n foo', { ...OPTS, sandboxed: true });
    expectAllow(
      'find src -name "*.ts" -exec cat {} +',
      { ...OPTS, sandboxed: true },
      withDefaultCommandRules({ allow: ['find'] }),
    );
  });
});

describe('safety/commands: hostile commands (class 4: reads that reach secrets)', () => {
  const cases: [string, RegExp][] = [
    ['cat < .env', /reads a secret file \(\.env\) as its input/],
    ['grep x < ~/.ssh/id_rsa', /~\/\.ssh/],
    ['cat 0<.env.local', /\.env/],
    ['while read l; do echo $l; done < .env', /\.env/],
    ['cat .en?', /glob that can match a secret file \(\.env\)/],
    ['cat *.pem', /glob that can match a secret file \(\*\.pem\)/],
    ['head */id_*', /glob that can match a secret file/],
    ['cat .e*', /glob that can match a secret file \(\.env\)/],
    ['cat .[e]nv', /\.env/],
    ['cat .{env,x}', /\.env/],
    ['cat src/*', /glob that can match a secret file/],
    ['cat ~/.a*/cred*', /glob that can match/],
    ['cat ~/.*', /glob that can match/],
    ['cat $HOME/.aws/credentials', /named only at run time/],
    ['cat "$(echo .env)"', /named only at run time/],
    ['cat ${X}', /named only at run time/],
    ["cat $'.e\\x6ev'", /named only at run time/],
    ['cat ~/.aws/credentials', /secret location ~\/\.aws/],
    ['cat ~/.ssh/config', /~\/\.ssh/],
    ['cat /root/.docker/config.json', /~\/\.docker/],
    ['cat ~/.config/gh/hosts.yml', /~\/\.config\/gh/],
    ['cat ~/.npmrc', /~\/\.npmrc/],
    ['cat ~/.netrc', /~\/\.netrc/],
    ['cat /home/u/.kube/config', /~\/\.kube/],
    ['cat /home/other/.pypirc', /~\/\.pypirc/],
    ['head -c 100 ~root/.ssh/id_ed25519', /~\/\.ssh/],
    ['cat /proc/self/environ', /\/proc\/self\/environ/],
    ['cat /proc/1/environ', /\/proc\/1\/environ/],
    ['cat /proc/$$/environ', /named only at run time/],
    ['cat /proc/*/environ', /\/proc/],
    ['cat /proc/self/../self/environ', /\/proc\/self\/environ/],
    ['cat < /dev/tcp/1.2.3.4/80', /opens a network connection/],
    ['head -1 </dev/udp/1.2.3.4/53', /opens a network connection/],
    ['head -c 512 /dev/sda', /the device \/dev\/sda/],
    ['cat /dev/mem', /the device \/dev\/mem/],
    ['wc -c < /dev/nvme0n1', /the device/],
    ['git show HEAD:.env', /\.env/],
    ['git show :config/.env.production', /\.env/],
    ['git diff HEAD~1:.env HEAD:.env', /\.env/],
    ['git log -p -- .env', /\.env/],
    ['grep -r TOKEN .', /recursively without an OS sandbox/],
    ['grep -R TOKEN', /recursively/],
    ['grep -rn x ~', /searches ~ recursively/],
    ['grep -r x /', /searches \/ recursively/],
    ['rg password ~', /searches ~ recursively/],
    ['rg password /home', /recursively/],
    ['rg foo', /whole folder \(\.\) recursively/],
    ['rg foo .', /recursively/],
    ['rg foo ..', /recursively/],
    ['rg -g .env ""', /\.env/],
    ['rg --glob=*.pem BEGIN src', /\*\.pem/],
    ['rg foo $DIR', /run time/],
    ['cat .env && git status', /\.env/],
    ['echo $(cat .env)', /\.env/],
    ['diff <(cat ~/.ssh/id_rsa) x', /~\/\.ssh/],
    ['make .env', /\.env/],
  ];
  for (const [cmd, reason] of cases) it(cmd, () => expectHazard(cmd, reason));

  it('the recursive rule relaxes inside the sandbox, but never for home or /', () => {
    const sb = { ...OPTS, sandboxed: true };
    expectAllow('rg foo', sb);
    expectAllow('grep -r TOKEN .', sb);
    expectHazard('rg password ~', /searches ~ recursively/, sb);
    expectHazard('grep -r x /', /searches \/ recursively/, sb);
    expectHazard('cat .env', /\.env/, sb);
  });
  it('user-allowed programs still ask for secrets', () => {
    const rules = withDefaultCommandRules({ allow: ['make', 'cat *'] });
    expectHazard('make .env', /\.env/, OPTS, rules);
    expectHazard('cat ~/.ssh/id_rsa', /~\/\.ssh/, OPTS, rules);
    expectHazard('LD_PRELOAD=x make', /LD_PRELOAD/, OPTS, rules);
    expectAllow('make build', OPTS, rules);
  });
});

describe('safety/commands: hostile commands (class 5: redirections)', () => {
  const cases: [string, RegExp][] = [
    ['echo x >| out', /writes output to out/],
    ['ls &>> log', /writes output to log/],
    ['ls &> log', /log/],
    ['ls >&file', /writes output to file/],
    ['exec 3>file', /writes output to file/],
    ['cat src/a.ts 1<>x', /x/],
    ['git status > $OUT', /named only at run time/],
    ['{ git status; } > out', /writes output to out/],
    ['(git status) >> out', /out/],
    ['git log > src/a.ts', /src\/a\.ts/],
  ];
  for (const [cmd, reason] of cases) it(cmd, () => expectHazard(cmd, reason));
  it('allows fd duplication and the harmless devices', () => {
    for (const cmd of [
      'ls 2>&1',
      'git status 2>/dev/null',
      'git log >/dev/null 2>&1',
      'ls 2>&-',
      'ls >&2',
      'echo x > /dev/stderr',
      'cat <<< "x"',
      'cat <<EOF\nx\nEOF',
      'cat < src/a.ts',
    ])
      expectAllow(cmd);
  });
});

describe('safety/commands: sandbox awareness and grants', () => {
  it('runs-workspace-code forms ask without a sandbox, run with one', () => {
    for (const cmd of [
      'npm test',
      'npm t',
      'npm run test',
      'npm run lint',
      'npm run build',
      'npm run typecheck',
      'npm run-script lint',
      'npx tsc --noEmit',
      'npm -s test -- --grep x',
    ]) {
      const v = checkCommand(cmd, DEFAULT_COMMAND_RULES, OPTS);
      assert.equal(v.action, 'ask', cmd);
      assert.match(v.reason, /no OS sandbox/);
      assert.equal(v.grantKeys!.length, 1, `${cmd}: grantable`);
      const s = checkCommand(cmd, DEFAULT_COMMAND_RULES, { ...OPTS, sandboxed: true });
      assert.equal(s.action, 'allow', `${cmd}: ${s.reason}`);
      assert.match(s.reason, /inside the OS sandbox/);
    }
    assert.deepEqual(checkCommand('npm run lint', DEFAULT_COMMAND_RULES, OPTS).grantKeys, ['npm run lint']);
    assert.deepEqual(checkCommand('npx tsc --noEmit', DEFAULT_COMMAND_RULES, OPTS).grantKeys, ['npx tsc']);
  });

  it('grant keys name program + subcommand; granted keys allow, nothing else', () => {
    const v = checkCommand('git commit -m x && make', DEFAULT_COMMAND_RULES, OPTS);
    assert.equal(v.action, 'ask');
    assert.deepEqual(v.grantKeys, ['git commit', 'make']);
    const partial = checkCommand('git commit -m x && make', DEFAULT_COMMAND_RULES, {
      ...OPTS,
      grants: new Set(['git commit']),
    });
    assert.equal(partial.action, 'ask');
    assert.deepEqual(partial.grantKeys, ['make']);
    const full = checkCommand('git commit -m x && make', DEFAULT_COMMAND_RULES, {
      ...OPTS,
      grants: new Set(['git commit', 'make']),
    });
    assert.equal(full.action, 'allow');
    assert.match(full.reason, /granted for this task: git commit, make/i);
    assert.deepEqual(checkCommand('git --no-pager -C src commit -am x', DEFAULT_COMMAND_RULES, OPTS).grantKeys, [
      'git commit',
    ]);
    assert.deepEqual(checkCommand('cargo build --release', DEFAULT_COMMAND_RULES, OPTS).grantKeys, ['cargo build']);
    assert.deepEqual(checkCommand('python3 -m pytest -q', DEFAULT_COMMAND_RULES, OPTS).grantKeys, [
      'python3 -m pytest',
    ]);
    assert.deepEqual(checkCommand('/usr/bin/make', DEFAULT_COMMAND_RULES, OPTS).grantKeys, ['/usr/bin/make']);
    assert.deepEqual(
      checkCommand('./git commit', DEFAULT_COMMAND_RULES, OPTS).grantKeys,
      ['./git commit'],
      'a program by path is not the program of that name',
    );
    // A grant of "git commit" does not cover git push, nor ./git commit.
    const g = { ...OPTS, grants: new Set(['git commit']) };
    assert.equal(checkCommand('git push origin x', DEFAULT_COMMAND_RULES, g).action, 'ask');
    assert.equal(checkCommand('./git commit', DEFAULT_COMMAND_RULES, g).action, 'ask');
    // Grants never cover hazards, and deny wins over grants.
    assert.equal(checkCommand('git -c core.pager=evil commit', DEFAULT_COMMAND_RULES, g).action, 'ask');
    assert.equal(checkCommand('git commit -m x > /tmp/o', DEFAULT_COMMAND_RULES, g).action, 'ask');
    assert.equal(
      checkCommand('git push --force', DEFAULT_COMMAND_RULES, { ...OPTS, grants: new Set(['git push']) }).action,
      'deny',
    );
  });

  it('non-literal programs or subcommands give no key', () => {
    expectHazard('git $SUB', /run time/);
    expectHazard('"$(which git)" status', /only known at run time/);
    const v = checkCommand('echo "unterminated', DEFAULT_COMMAND_RULES, OPTS);
    assert.equal(v.action, 'ask');
    assert.deepEqual(v.grantKeys, []);
  });

  it('user allow rules stay prefix rules and disable nothing of the built-in table', () => {
    const rules = withDefaultCommandRules({ allow: ['npm run *', 'make'] });
    expectAllow('npm run dev', OPTS, rules);
    expectAllow('make', OPTS, rules);
    expectHazard('npm run dev --script-shell=./x', /--script-shell/, OPTS, rules);
    expectAllow('git status', OPTS, rules);
    // Without the default forms in the list, built-ins are not allowed (the caller replaced the defaults).
    assert.equal(checkCommand('git status', { allow: ['make'] }, OPTS).action, 'ask');
  });

  it('describes the built-in forms by class', () => {
    const d = describeBuiltinCommandRules();
    assert.ok(d.readOnly.includes('git status') && d.readOnly.includes('tsc --noEmit') && d.readOnly.includes('cat'));
    assert.deepEqual(d.runsWorkspaceCode.sort(), [
      'npm run build',
      'npm run lint',
      'npm run test',
      'npm run typecheck',
      'npm test',
      'npx tsc --noEmit',
    ]);
    for (const f of [...d.readOnly, ...d.runsWorkspaceCode]) assert.ok(DEFAULT_COMMAND_RULES.allow.includes(f), f);
    assert.equal(d.readOnly.length + d.runsWorkspaceCode.length, DEFAULT_COMMAND_RULES.allow.length);
  });
});
