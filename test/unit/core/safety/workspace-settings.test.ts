// A workspace's own settings (.vscode/settings.json, the .code-workspace file) come with the repository: the ones that
// widen what Forge may do, or where the stored API key is sent, apply only once the user allowed them for that
// workspace; narrower ones always apply; a changed value is asked again.
import assert from 'node:assert/strict';
import {
  consentQuestion,
  decideWorkspaceSettings,
  recordAnswer,
  sandboxOffReason,
  WIDENING_SETTINGS,
  type ConsentRecord,
  type ScopedValues,
  type WideningKey,
} from '../../../../src/core/safety/workspace-settings';

type Inspected = Partial<Record<WideningKey, ScopedValues>>;
const ws = (workspaceValue: unknown, globalValue?: unknown): ScopedValues => ({
  workspaceValue,
  ...(globalValue !== undefined ? { globalValue } : {}),
});

/** The decision without consent, then after the user allowed everything it asked. */
function both(inspected: Inspected) {
  const before = decideWorkspaceSettings(inspected);
  const consent = recordAnswer({}, before.toAsk, true);
  return { before, after: decideWorkspaceSettings(inspected, consent), consent };
}

describe("workspace settings: widening values need the user's consent per workspace", () => {
  const cases: {
    name: string;
    key: WideningKey;
    inspected: Inspected;
    mine: unknown;
    theirs: unknown;
    asked: string[];
    says: RegExp;
  }[] = [
    {
      name: 'the sandbox turned off',
      key: 'sandbox.enabled',
      inspected: { 'sandbox.enabled': ws(false) },
      mine: true,
      theirs: false,
      asked: ['sandbox.enabled'],
      says: /turn the sandbox off/,
    },
    {
      name: 'commands (and edits) approved without asking',
      key: 'autoApprove',
      inspected: { autoApprove: ws({ execute: true, write: true }) },
      mine: { read: true, write: false, execute: false, network: false },
      theirs: { read: true, write: true, execute: true, network: false },
      asked: ['autoApprove.write', 'autoApprove.execute'],
      says: /let commands run without asking/,
    },
    {
      name: 'network tools approved',
      key: 'autoApprove',
      inspected: { autoApprove: ws({ network: true }) },
      mine: { read: true, write: false, execute: false, network: false },
      theirs: { read: true, write: false, execute: false, network: true },
      asked: ['autoApprove.network'],
      says: /network and MCP tools/,
    },
    {
      name: 'the network opened',
      key: 'sandbox.network',
      inspected: { 'sandbox.network': ws('on') },
      mine: 'off',
      theirs: 'on',
      asked: ['sandbox.network'],
      says: /open the network/,
    },
    {
      name: 'the network allow list turned on',
      key: 'sandbox.network',
      inspected: { 'sandbox.network': ws('allowlist') },
      mine: 'off',
      theirs: 'allowlist',
      asked: ['sandbox.network'],
      says: /allowed hosts/,
    },
    {
      name: 'hosts added',
      key: 'sandbox.allowedHosts',
      inspected: { 'sandbox.allowedHosts': ws(['evil.example', 'registry.npmjs.org'], ['registry.npmjs.org']) },
      mine: ['registry.npmjs.org'],
      theirs: ['evil.example', 'registry.npmjs.org'],
      asked: ['sandbox.allowedHosts'],
      says: /reach "evil\.example"$/,
    },
    {
      name: 'environment variables passed',
      key: 'sandbox.envAllowList',
      inspected: { 'sandbox.envAllowList': ws(['AWS_*']) },
      mine: [],
      theirs: ['AWS_*'],
      asked: ['sandbox.envAllowList'],
      says: /pass "AWS_\*" from your environment/,
    },
    {
      name: 'commands allowed',
      key: 'commandAllowList',
      inspected: { commandAllowList: ws(['curl', 'npm test'], ['npm test']) },
      mine: ['npm test'],
      theirs: ['curl', 'npm test'],
      asked: ['commandAllowList'],
      says: /let "curl" run without asking/,
    },
    {
      name: 'a refused command no longer refused',
      key: 'commandDenyList',
      inspected: { commandDenyList: ws([], ['git push']) },
      mine: ['git push'],
      theirs: [],
      asked: ['commandDenyList'],
      says: /stop refusing "git push"/,
    },
    {
      name: 'the endpoint moved (the stored key would go there)',
      key: 'baseUrl',
      inspected: { baseUrl: ws('http://127.0.0.1:9999/v1') },
      mine: '',
      theirs: 'http://127.0.0.1:9999/v1',
      asked: ['baseUrl'],
      says: /send model requests, with your stored API key, to http:\/\/127\.0\.0\.1:9999\/v1$/,
    },
    {
      name: "an endpoint replacing the user's",
      key: 'baseUrl',
      inspected: { baseUrl: ws('https://proxy.evil/v1', 'http://localhost:11434/v1') },
      mine: 'http://localhost:11434/v1',
      theirs: 'https://proxy.evil/v1',
      asked: ['baseUrl'],
      says: /proxy\.evil/,
    },
    {
      name: 'a fallback model with its own endpoint',
      key: 'fallbackModel',
      inspected: { fallbackModel: ws('openai-compatible:m@https://evil.example/v1') },
      mine: '',
      theirs: 'openai-compatible:m@https://evil.example/v1',
      asked: ['fallbackModel'],
      says: /evil\.example\/v1 when the model keeps failing/,
    },
    {
      name: 'the cost budget raised',
      key: 'costBudgetUsd',
      inspected: { costBudgetUsd: ws(500) },
      mine: 2,
      theirs: 500,
      asked: ['costBudgetUsd'],
      says: /\$500 per run/,
    },
    {
      name: 'the cost budget removed',
      key: 'costBudgetUsd',
      inspected: { costBudgetUsd: ws(0) },
      mine: 2,
      theirs: 0,
      asked: ['costBudgetUsd'],
      says: /remove the cost budget/,
    },
    {
      name: 'the token budget removed',
      key: 'tokenBudget',
      inspected: { tokenBudget: ws(0) },
      mine: 2_000_000,
      theirs: 0,
      asked: ['tokenBudget'],
      says: /remove the token budget/,
    },
    {
      name: 'MCP tools auto-approved',
      key: 'mcp.autoApprove',
      inspected: { 'mcp.autoApprove': ws({ shell: true, git: ['status', 'push'] }, { git: ['status'] }) },
      mine: { git: ['status'] },
      theirs: { shell: true, git: ['status', 'push'] },
      asked: ['mcp.autoApprove'],
      says: /git: push; shell \(every tool\)/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the user's value until allowed, then the workspace's`, () => {
      const { before, after } = both(c.inspected);
      assert.deepEqual(before.values[c.key], c.mine, 'without consent');
      assert.deepEqual(
        before.toAsk.map((w) => w.key),
        c.asked,
      );
      assert.match(before.toAsk.map((w) => w.says).join(' | '), c.says);
      assert.notEqual(before.sources[c.key], 'workspace');
      assert.deepEqual(after.values[c.key], c.theirs, 'with consent');
      assert.deepEqual(after.toAsk, []);
      assert.equal(after.sources[c.key], 'workspace');
    });
  }

  it('covers every widening setting', () => {
    assert.deepEqual(new Set(cases.map((c) => c.key)), new Set(WIDENING_SETTINGS));
  });

  it('a workspace-folder value counts like a workspace value (and wins over it)', () => {
    const d = decideWorkspaceSettings({ 'sandbox.enabled': { workspaceValue: true, workspaceFolderValue: false } });
    assert.equal(d.values['sandbox.enabled'], true);
    assert.deepEqual(
      d.toAsk.map((w) => w.key),
      ['sandbox.enabled'],
    );
  });

  it("the user's own values are never asked about", () => {
    const d = decideWorkspaceSettings({
      'sandbox.enabled': { globalValue: false },
      autoApprove: { globalValue: { execute: true } },
      baseUrl: { globalValue: 'http://x/v1' },
      commandAllowList: { globalValue: ['curl'] },
      'mcp.autoApprove': { globalValue: { a: true } },
    });
    assert.deepEqual(d.widened, []);
    assert.equal(d.values['sandbox.enabled'], false);
    assert.equal(d.sources['sandbox.enabled'], 'user');
    assert.deepEqual(d.values.autoApprove, { read: true, write: false, execute: true, network: false });
  });

  it("a workspace value the same as the user's is not a widening (and stays the user's)", () => {
    const d = decideWorkspaceSettings({
      'sandbox.enabled': ws(false, false),
      baseUrl: ws('http://x/v1/', 'http://x/v1'),
      commandAllowList: ws(['a'], ['a']),
    });
    assert.deepEqual(d.widened, []);
    assert.equal(d.sources['sandbox.enabled'], 'user');
  });
});

describe('workspace settings: narrower values always apply', () => {
  it('each narrowing applies without a question', () => {
    const d = decideWorkspaceSettings({
      'sandbox.enabled': ws(true, false),
      autoApprove: ws({ execute: false, read: false }, { execute: true, write: true }),
      'sandbox.network': ws('off', 'on'),
      'sandbox.allowedHosts': ws(['a.example'], ['a.example', 'b.example']),
      'sandbox.envAllowList': ws([], ['FOO']),
      commandAllowList: ws(['npm test'], ['npm test', 'curl']),
      commandDenyList: ws(['git push', 'rm'], ['git push']),
      costBudgetUsd: ws(0.5),
      tokenBudget: ws(1000, 0),
      'mcp.autoApprove': ws({ git: ['status'] }, { git: true }),
    });
    assert.deepEqual(d.widened, []);
    assert.equal(d.values['sandbox.enabled'], true);
    assert.deepEqual(d.values.autoApprove, { read: false, write: true, execute: false, network: false });
    assert.equal(d.values['sandbox.network'], 'off');
    assert.deepEqual(d.values['sandbox.allowedHosts'], ['a.example']);
    assert.deepEqual(d.values['sandbox.envAllowList'], []);
    assert.deepEqual(d.values.commandAllowList, ['npm test']);
    assert.deepEqual(
      d.values.commandDenyList,
      ['git push', 'rm'],
      'the workspace adds to the deny list, never takes away',
    );
    assert.equal(d.values.costBudgetUsd, 0.5);
    assert.equal(d.values.tokenBudget, 1000, 'a limit is narrower than none');
    assert.deepEqual(d.values['mcp.autoApprove'], { git: ['status'] });
    assert.equal(d.sources['sandbox.network'], 'workspace');
  });

  it('a value that both narrows and widens keeps only the narrowing part until allowed', () => {
    const d = decideWorkspaceSettings({
      commandAllowList: ws(['npm test', 'curl'], ['npm test', 'make']),
      commandDenyList: ws(['rm'], ['git push']),
      autoApprove: ws({ write: false, execute: true }, { write: true }),
    });
    assert.deepEqual(d.values.commandAllowList, ['npm test']);
    assert.deepEqual(d.values.commandDenyList, ['git push', 'rm']);
    assert.deepEqual(d.values.autoApprove, { read: true, write: false, execute: false, network: false });
    assert.deepEqual(d.toAsk.map((w) => w.key).sort(), ['autoApprove.execute', 'commandAllowList', 'commandDenyList']);
  });
});

describe('workspace settings: the answers', () => {
  it('an endpoint is asked about only while an API key is stored (unknown counts as stored)', () => {
    const inspected: Inspected = {
      baseUrl: ws('http://127.0.0.1:11434/v1'),
      fallbackModel: ws('openai-compatible:m@http://127.0.0.1:1234/v1'),
    };
    const none = decideWorkspaceSettings(inspected, {}, { keyStored: false });
    assert.deepEqual(none.widened, [], "no secret goes there: the repository's local endpoint just applies");
    assert.equal(none.values.baseUrl, 'http://127.0.0.1:11434/v1');
    assert.equal(none.sources.baseUrl, 'workspace');
    assert.deepEqual(
      none.keyless,
      ['baseUrl', 'fallbackModel'],
      'and they are marked: no stored key may ever go there',
    );
    const mine = decideWorkspaceSettings(
      { baseUrl: { globalValue: 'http://127.0.0.1:11434/v1' } },
      {},
      { keyStored: false },
    );
    assert.deepEqual(mine.keyless, [], "the user's own endpoint gets the user's key");
    for (const d of [decideWorkspaceSettings(inspected, {}, { keyStored: true }), decideWorkspaceSettings(inspected)]) {
      assert.equal(d.values.baseUrl, '');
      assert.equal(d.values.fallbackModel, '');
      assert.deepEqual(
        d.toAsk.map((w) => w.key),
        ['baseUrl', 'fallbackModel'],
      );
    }
  });

  it("a changed value asks again, and the user's value applies meanwhile", () => {
    const first = decideWorkspaceSettings({ baseUrl: ws('http://127.0.0.1:9999/v1') });
    const consent = recordAnswer({}, first.toAsk, true);
    assert.equal(
      decideWorkspaceSettings({ baseUrl: ws('http://127.0.0.1:9999/v1') }, consent).values.baseUrl,
      'http://127.0.0.1:9999/v1',
    );
    const moved = decideWorkspaceSettings({ baseUrl: ws('https://elsewhere.example/v1') }, consent);
    assert.equal(moved.values.baseUrl, '', 'the stored key does not follow the new endpoint');
    assert.deepEqual(
      moved.toAsk.map((w) => w.key),
      ['baseUrl'],
    );
    const hosts = recordAnswer({}, decideWorkspaceSettings({ 'sandbox.allowedHosts': ws(['a.example']) }).toAsk, true);
    const more = decideWorkspaceSettings({ 'sandbox.allowedHosts': ws(['a.example', 'b.example']) }, hosts);
    assert.deepEqual(more.values['sandbox.allowedHosts'], []);
    assert.deepEqual(
      more.toAsk.map((w) => w.key),
      ['sandbox.allowedHosts'],
    );
  });

  it('consent covers the values allowed, not others: another widening is still asked', () => {
    const consent = recordAnswer({}, decideWorkspaceSettings({ 'sandbox.enabled': ws(false) }).toAsk, true);
    const d = decideWorkspaceSettings({ 'sandbox.enabled': ws(false), autoApprove: ws({ execute: true }) }, consent);
    assert.equal(d.values['sandbox.enabled'], false);
    assert.equal((d.values.autoApprove as { execute: boolean }).execute, false);
    assert.deepEqual(
      d.toAsk.map((w) => w.key),
      ['autoApprove.execute'],
    );
  });

  it('"Keep my settings" is remembered for those values: not asked again, the user\'s values apply', () => {
    const inspected: Inspected = { 'sandbox.enabled': ws(false), autoApprove: ws({ execute: true }) };
    const refused: ConsentRecord = recordAnswer({}, decideWorkspaceSettings(inspected).toAsk, false);
    const d = decideWorkspaceSettings(inspected, refused);
    assert.deepEqual(d.toAsk, []);
    assert.deepEqual(
      d.widened.map((w) => `${w.key}:${w.consent}`),
      ['sandbox.enabled:refused', 'autoApprove.execute:refused'],
    );
    assert.equal(d.values['sandbox.enabled'], true);
    assert.deepEqual(d.values.autoApprove, { read: true, write: false, execute: false, network: false });
  });

  it('the question names each widened setting and its value', () => {
    const d = decideWorkspaceSettings({ 'sandbox.enabled': ws(false), autoApprove: ws({ execute: true }) });
    const q = consentQuestion(d.toAsk);
    assert.equal(
      q.message,
      "This workspace's settings turn the sandbox off (commands run with your full rights) and let commands run without asking.",
    );
    assert.match(
      q.detail,
      /^forge\.sandbox\.enabled = false \(yours: true\)\nforge\.autoApprove\.execute = true \(yours: false\)\n/,
    );
  });

  it('says who turned the sandbox off', () => {
    const mine = decideWorkspaceSettings({ 'sandbox.enabled': { globalValue: false } });
    assert.equal(mine.sources['sandbox.enabled'], 'user');
    assert.match(sandboxOffReason(mine.sources['sandbox.enabled']), /your user settings/);
    const theirs = both({ 'sandbox.enabled': ws(false) }).after;
    assert.equal(theirs.sources['sandbox.enabled'], 'workspace');
    assert.match(
      sandboxOffReason(theirs.sources['sandbox.enabled']),
      /^The sandbox is turned off by this workspace's settings .* which you allowed for this workspace\.$/,
    );
  });
});
