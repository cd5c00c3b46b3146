// MCP against the reference servers others wrote: server-everything (stdio and Streamable HTTP) and
// server-filesystem (stdio), through McpManager and the tool registry exactly as the agent uses them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { promptResultToText, resourceAttachmentText } from '../../../../src/core/mcp/prompts';
import { systemClock } from '../../../../src/core/loop/config';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';
import {
  byName,
  ctx,
  EVERYTHING,
  FILESYSTEM,
  startEverythingHttp,
  stdio,
  testManager,
  type TestManager,
} from './helpers';

describe('mcp: server-everything over stdio', function () {
  this.timeout(60_000);
  let t: TestManager;
  before(() => (t = testManager([stdio('everything', [EVERYTHING, 'stdio'])])));
  after(() => t.manager.dispose());

  it('starts lazily and lists its tools namespaced', async () => {
    assert.equal(t.manager.status()[0]!.state, 'stopped', 'nothing starts before the first listing');
    const tools = await t.manager.loadTools(new AbortController().signal);
    const names = tools.map((x) => x.name);
    for (const n of ['mcp__everything__echo', 'mcp__everything__get-sum', 'mcp__everything__get-tiny-image'])
      assert.ok(names.includes(n), names.join(', '));
    for (const n of names) assert.match(n, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.equal(t.manager.status()[0]!.state, 'running');
    assert.ok(t.manager.status()[0]!.tools!.includes('echo'));
    assert.match(byName(tools, 'mcp__everything__echo').description, /third-party text/);
  });

  it('validates arguments against the JSON Schema and calls the tool', async () => {
    const reg = new ToolRegistry(await t.manager.loadTools(new AbortController().signal));
    const bad = reg.validate('mcp__everything__get-sum', { a: 'one', b: 2 });
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.result.content : '', /- a: /);
    const ok = reg.validate('mcp__everything__get-sum', { a: 2, b: 40 });
    assert.ok(ok.ok);
    const sum = await ok.tool.execute(ok.input, ctx());
    assert.equal(sum.isError, undefined);
    assert.match(sum.content, /42/);
    const echo = await byName(reg.list(), 'mcp__everything__echo').execute({ message: 'hello mcp' }, ctx());
    assert.match(echo.content, /hello mcp/);
  });

  it('maps image results to a description', async () => {
    const tools = await t.manager.loadTools(new AbortController().signal);
    const r = await byName(tools, 'mcp__everything__get-tiny-image').execute({}, ctx());
    assert.match(r.content, /\[image image\/png, [\d.]+ (B|KB): not shown to the model\]/);
  });

  it('lists prompts for slash commands and expands one', async () => {
    const prompts = await t.manager.listPrompts();
    const simple = prompts.find((p) => p.name === 'simple-prompt');
    assert.ok(simple, prompts.map((p) => p.name).join(', '));
    assert.equal(simple.command, 'mcp.everything.simple-prompt');
    const args = prompts.find((p) => p.name === 'args-prompt');
    assert.ok(args?.arguments.some((a) => a.required));
    const text = promptResultToText(await t.manager.getPrompt('everything', 'simple-prompt', {}));
    assert.ok(text.length > 0);
  });

  it('lists and reads resources for attaching to a message', async () => {
    const resources = await t.manager.listResources();
    assert.ok(resources.length > 0);
    const first = resources[0]!;
    const text = resourceAttachmentText(first.server, first.uri, await t.manager.readResource(first.server, first.uri));
    assert.match(text, /third-party content/);
    assert.ok(text.includes(first.uri));
  });

  it('a scripted agent calls an MCP tool after approval and the result reaches the model', async () => {
    const h = harness([callsTurn(['mcp__everything__echo', { message: 'via the loop' }]), doneTurn('ok')], {
      tools: [],
      toolSources: [t.manager.toolSource],
      clock: systemClock as never,
    });
    const report = await h.agent.send('echo something');
    assert.equal(report.reason, 'done');
    assert.equal(h.approver.requests.length, 1, 'MCP tools ask by default');
    assert.equal(h.approver.requests[0]!.toolName, 'mcp__everything__echo');
    const second = h.model.requests[1]!;
    const result = second.messages.find((m) => m.role === 'tool');
    assert.match(String(result?.content), /via the loop/);
    assert.ok(h.model.requests[0]!.tools!.some((s) => s.name === 'mcp__everything__echo'));
  });

  it('forge.mcp.autoApprove lets a tool run without asking', async () => {
    t.allowed.add('everything/echo');
    const h = harness([callsTurn(['mcp__everything__echo', { message: 'no question' }]), doneTurn('ok')], {
      tools: [],
      toolSources: [t.manager.toolSource],
      clock: systemClock as never,
    });
    await h.agent.send('echo');
    assert.equal(h.approver.requests.length, 0);
  });
});

describe('mcp: server-everything over Streamable HTTP', function () {
  this.timeout(60_000);
  let child: ChildProcess | undefined;
  let t: TestManager;
  before(async () => {
    const started = await startEverythingHttp();
    child = started.child;
    t = testManager([{ name: 'everything-http', source: 'test', type: 'http', url: started.url, headers: {} }]);
  });
  after(async () => {
    await t?.manager.dispose();
    child?.kill();
  });

  it('lists and calls tools over HTTP', async () => {
    const tools = await t.manager.loadTools(new AbortController().signal);
    const echo = byName(tools, 'mcp__everything-http__echo');
    assert.equal(echo.risk, 'network');
    const r = await echo.execute({ message: 'over http' }, ctx());
    assert.match(r.content, /over http/);
    assert.ok((await t.manager.listPrompts()).some((p) => p.server === 'everything-http'));
  });

  it('a server that goes away gives an error result; the next use reconnects', async () => {
    const tools = await t.manager.loadTools(new AbortController().signal);
    const url = new URL((t.manager as any).entries.get('everything-http').spec.url);
    child!.kill();
    await new Promise((r) => child!.once('exit', r));
    const failed = await byName(tools, 'mcp__everything-http__echo').execute({ message: 'anyone?' }, ctx());
    assert.equal(failed.isError, true);
    assert.match(failed.content, /MCP server "everything-http" failed while running echo/);
    assert.equal(t.manager.status()[0]!.state, 'crashed');
    child = (await startEverythingHttp(Number(url.port))).child;
    const again = await byName(
      await t.manager.loadTools(new AbortController().signal),
      'mcp__everything-http__echo',
    ).execute({ message: 'back again' }, ctx());
    assert.match(again.content, /back again/);
  });
});

describe('mcp: server-filesystem over stdio', function () {
  this.timeout(60_000);
  let dir: string;
  let t: TestManager;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'forge-mcp-fs-')));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'the secret word is pelican\n');
    t = testManager([stdio('files', [FILESYSTEM, dir])]);
  });
  after(async () => {
    await t.manager.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists a directory and reads a file', async () => {
    const tools = await t.manager.loadTools(new AbortController().signal);
    const list = await byName(tools, 'mcp__files__list_directory').execute({ path: dir }, ctx());
    assert.match(list.content, /notes\.txt/);
    const read = await byName(tools, 'mcp__files__read_text_file').execute(
      { path: path.join(dir, 'notes.txt') },
      ctx(),
    );
    assert.match(read.content, /pelican/);
  });

  it('a refusal of the server comes back as an error result', async () => {
    const tools = await t.manager.loadTools(new AbortController().signal);
    const r = await byName(tools, 'mcp__files__read_text_file').execute({ path: '/etc/hostname' }, ctx());
    assert.equal(r.isError, true);
    assert.match(r.content, /denied|outside|not allowed/i);
  });
});
