// A workspace MCP server's permission covers everything that changes what runs: allowed once for one
// configuration, asked again when the transport, command, args, cwd, env, envFile (or what it holds), url or
// headers change. In the extension (McpServerConsent over workspaceState) and the CLI (a y at the terminal).
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createCliMcp } from '../../../../src/cli/mcp';
import type { McpServerSpec } from '../../../../src/core/mcp/config';
import { describePermission, serverPermissionKey } from '../../../../src/core/mcp/permission';
import { withEnvFile } from '../../../../src/node/mcp/config-files';
import { ALLOWED_SERVERS, McpServerConsent, type ConsentStore } from '../../../../src/node/mcp/consent';
import { byName, ctx, HOSTILE } from './helpers';

type Stdio = Extract<McpServerSpec, { type: 'stdio' }>;
type Http = Extract<McpServerSpec, { type: 'http' }>;

const base: Stdio = {
  name: 'srv',
  source: '.vscode/mcp.json',
  type: 'stdio',
  command: 'node',
  args: ['server.js'],
  env: { A: '1' },
  envFile: '.env',
  cwd: '/ws',
};
const web: Http = {
  name: 'srv',
  source: '.vscode/mcp.json',
  type: 'http',
  url: 'https://mcp.example.invalid/x',
  headers: { Authorization: 'Bearer ${input:tok}' },
};

class MapStore implements ConsentStore {
  readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.data.set(key, value);
  }
}

describe('mcp permission: what a workspace server is allowed as', () => {
  it('the key changes with every field that changes what runs, and only with those', () => {
    const key = serverPermissionKey(base, 'sha256:aa');
    const changed: [string, McpServerSpec, string?][] = [
      ['command', { ...base, command: 'python3' }],
      ['args', { ...base, args: ['server.js', '--debug'] }],
      ['args order', { ...base, args: ['--x', 'server.js'] }],
      ['cwd', { ...base, cwd: '/ws/other' }],
      ['env gains NODE_OPTIONS', { ...base, env: { A: '1', NODE_OPTIONS: '--require ./x.js' } }],
      ['env value', { ...base, env: { A: '2' } }],
      ['envFile', { ...base, envFile: '.env.local' }],
      ['envFile content', base, 'sha256:bb'],
      ['envFile missing', base, 'missing'],
      ['transport', { ...web, name: 'srv' }],
      ['name', { ...base, name: 'srv2' }],
    ];
    for (const [what, spec, digest] of changed)
      assert.notEqual(serverPermissionKey(spec, digest ?? 'sha256:aa'), key, what);
    assert.equal(
      serverPermissionKey({ ...base, env: { A: '1' }, source: 'other label' }, 'sha256:aa'),
      key,
      'where it was read is not what runs',
    );
    const two = { ...base, env: { A: '1', B: '2' } };
    assert.equal(
      serverPermissionKey(two, 'x'),
      serverPermissionKey({ ...base, env: { B: '2', A: '1' } }, 'x'),
      'env order does not matter',
    );

    const webKey = serverPermissionKey(web);
    assert.notEqual(serverPermissionKey({ ...web, url: 'https://mcp.example.invalid/y' }), webKey, 'url');
    assert.notEqual(
      serverPermissionKey({ ...web, headers: { ...web.headers, 'X-Extra': '1' } }),
      webKey,
      'headers gain one',
    );
    assert.notEqual(
      serverPermissionKey({ ...web, headers: { Authorization: 'Bearer literal-token-123' } }),
      webKey,
      'header value',
    );
    assert.ok(
      !serverPermissionKey({ ...web, headers: { Authorization: 'Bearer literal-token-123' } }).includes(
        'literal-token',
      ),
      'no value in clear',
    );
  });

  it('the question names what it allows', () => {
    assert.equal(
      describePermission({ ...base, env: { NODE_OPTIONS: 'x', A: '1' } }),
      'runs "node server.js" in /ws with A, NODE_OPTIONS set and the variables of .env',
    );
    assert.equal(describePermission(web), 'connects to https://mcp.example.invalid/x with the headers Authorization');
  });

  describe('in the extension: McpServerConsent', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'forge-mcp-consent-'));
      writeFileSync(path.join(dir, '.env'), 'TOKEN=abc\n');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const consent = (store: ConsentStore) =>
      new McpServerConsent(
        store,
        () => dir,
        () => ({ env: () => undefined, workspaceFolder: dir }),
      );
    const spec = (): Stdio => ({ ...base, cwd: '${workspaceFolder}', envFile: '.env' });

    it('allowed once, then asked again when the env, the envFile content or the command changes', async () => {
      const store = new MapStore();
      const c = consent(store);
      const first = await c.check(spec());
      assert.equal(first.state, 'ask');
      await c.allow(first.key);
      assert.equal((await c.check(spec())).state, 'allowed');
      assert.equal(
        (await c.check({ ...spec(), env: { A: '1', NODE_OPTIONS: '--require ./x.js' } })).state,
        'ask',
        'env gained NODE_OPTIONS',
      );
      assert.equal((await c.check({ ...spec(), args: ['evil.js'] })).state, 'ask', 'args');
      writeFileSync(path.join(dir, '.env'), 'TOKEN=abc\nNODE_OPTIONS=--require ./x.js\n');
      assert.equal((await c.check(spec())).state, 'ask', 'the envFile gained a line');
      writeFileSync(path.join(dir, '.env'), 'TOKEN=abc\n');
      assert.equal((await c.check(spec())).state, 'allowed', 'back to what was allowed');
      rmSync(path.join(dir, '.env'));
      assert.equal((await c.check(spec())).state, 'ask', 'the envFile is gone');
      const stored = JSON.stringify(store.data.get(ALLOWED_SERVERS));
      assert.ok(!stored.includes('server.js') && !stored.includes('TOKEN'), 'only digests are stored');
    });

    it('a refusal holds for that configuration only', async () => {
      const c = consent(new MapStore());
      const { key } = await c.check(spec());
      await c.refuse(key);
      assert.equal((await c.check(spec())).state, 'refused');
      assert.equal((await c.check({ ...spec(), command: 'node2' })).state, 'ask');
      await c.allow(key);
      assert.equal((await c.check(spec())).state, 'allowed', 'Start after a refusal');
    });

    it('the server starts with the envFile bytes the permission was given for, even if the file changes after', async () => {
      const c = consent(new MapStore());
      const checked = await c.check(spec());
      writeFileSync(path.join(dir, '.env'), 'TOKEN=abc\nNODE_OPTIONS=--require ./x.js\n');
      const started = await withEnvFile({ ...spec(), cwd: dir }, dir, checked.envFile);
      assert.deepEqual((started as Stdio).env, { TOKEN: 'abc', A: '1' });
    });
  });

  describe('in the CLI: a y at the terminal is for one configuration', function () {
    this.timeout(30_000);
    it('a restart after the envFile changed asks again; an unchanged one does not', async () => {
      const ws = mkdtempSync(path.join(tmpdir(), 'forge-mcp-cli-'));
      try {
        mkdirSync(path.join(ws, '.vscode'));
        writeFileSync(
          path.join(ws, '.vscode', 'mcp.json'),
          JSON.stringify({
            servers: { hostile: { type: 'stdio', command: process.execPath, args: [HOSTILE], envFile: '.env' } },
          }),
        );
        writeFileSync(path.join(ws, '.env'), 'CONFIGURED_VAR=one\n');
        const prompts: string[] = [];
        const manager = (await createCliMcp({
          workspace: ws,
          allow: [],
          env: { PATH: process.env.PATH },
          log: { info: () => undefined, warn: () => undefined, debug: () => undefined },
          ask: async (prompt) => {
            prompts.push(prompt);
            return 'y';
          },
        }))!;
        try {
          const env = async () =>
            (
              await byName(await manager.loadTools(new AbortController().signal), 'mcp__hostile__env').execute(
                {},
                ctx(),
              )
            ).content.split('\n');
          assert.ok((await env()).includes('CONFIGURED_VAR'));
          assert.equal(prompts.length, 1);
          assert.match(
            prompts[0]!,
            /runs ".*hostile-server\.cjs" in .* with the variables of \.env outside the sandbox/,
          );
          await manager.connection('hostile')!.restart();
          assert.equal(prompts.length, 1, 'the same configuration is not asked again');
          writeFileSync(path.join(ws, '.env'), 'CONFIGURED_VAR=one\nOTHER_VAR=two\n');
          await manager.connection('hostile')!.restart();
          assert.equal(prompts.length, 2, 'the changed envFile is asked again');
          assert.ok((await env()).includes('OTHER_VAR'));
        } finally {
          await manager.dispose();
        }
      } finally {
        rmSync(ws, { recursive: true, force: true });
      }
    });
  });
});
