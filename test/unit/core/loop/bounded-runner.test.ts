// Bounded tools in the loop: every call has a time limit through its signal (a tool that ignores it is abandoned
// with a "timed out" result), Stop ends any tool within 1 s, transient I/O errors are retried with the design's
// backoff, and every error result carries its class in the result data and the run report.
import assert from 'node:assert/strict';
import * as z from 'zod';
import { InMemoryOutputStore } from '../../../../src/core/context/output-store';
import { resolveConfig } from '../../../../src/core/loop/config';
import type { StepToolCall } from '../../../../src/core/loop/model-step';
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  runToolCall,
  toolTimeLimitMs,
  withTimeLimit,
  type ToolRunContext,
} from '../../../../src/core/loop/tool-runner';
import { getEventListeners } from 'node:events';
import { getMode } from '../../../../src/core/modes';
import { Policy } from '../../../../src/core/safety/policy';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { classifyThrown, isTransientError } from '../../../../src/core/tools/error-class';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { toolTimeoutSeconds } from '../../../../src/core/tools/builtin/index';
import { TransientToolError, type Tool } from '../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { callsTurn, doneTurn, FakeClock } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness } from '../../../support/loop-harness';

const input = z.object({ path: z.string().optional() });

function tool(name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool {
  return { name, description: name, input, risk: 'read', execute, ...extra } as Tool;
}

function waitFor(pred: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (pred() ? resolve() : setTimeout(tick, 1));
    tick();
  });
}

describe('bounded tools: time limits in the loop', () => {
  it('a tool that ignores its signal is abandoned at its limit with a "timed out" error result', async () => {
    let seen: AbortSignal | undefined;
    const stuck = tool(
      'stuck',
      (_i, ctx) => {
        seen = ctx.signal;
        return new Promise(() => undefined); // never settles, never looks at the signal
      },
      { timeoutMs: 80 },
    );
    const h = harness([callsTurn(['stuck', {}]), doneTurn()], { tools: [stuck] });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(seen!.aborted, true, 'the call was told to stop');
    const result = h.ofType('tool_result')[0]!;
    assert.equal(result.isError, true);
    assert.match(
      result.content,
      /^stuck timed out after 0\.1 s \(its time limit\) and was stopped\. It may still be running in the background/,
    );
    assert.equal(result.errorClass, 'timeout');
    const call = report.steps[0]!.toolCalls[0]!;
    assert.equal(call.errorClass, 'timeout');
    assert.match(call.error!, /timed out after 0\.1 s/);
    assertHistoryConsistent(h.agent.history);
  });

  it('a tool that honours its signal ends at the limit the same way; a write tool is told to check its effect', async () => {
    const honest = tool(
      'honest',
      (_i, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      { timeoutMs: 100, risk: 'write' },
    );
    const h = harness([callsTurn(['honest', {}]), doneTurn()], {
      tools: [honest],
      config: { policy: { byTool: { honest: 'allow' } } },
    });
    await h.agent.send('t');
    const result = h.ofType('tool_result')[0]!;
    assert.match(result.content, /honest timed out after 0\.1 s/);
    assert.match(result.content, /check its effect before trying again/);
  });

  it('Stop ends a tool that ignores its signal within 1 s, however long its limit', async () => {
    let started = false;
    const stuck = tool(
      'stuck',
      () => {
        started = true;
        return new Promise(() => undefined);
      },
      { timeoutMs: 3_600_000 },
    );
    const h = harness([callsTurn(['stuck', {}])], { tools: [stuck] });
    const p = h.agent.send('t');
    await waitFor(() => started);
    const t0 = Date.now();
    h.agent.stop();
    const report = await p;
    assert.ok(Date.now() - t0 < 1000, 'stopped within 1 s');
    assert.equal(report.reason, 'stopped');
    assertHistoryConsistent(h.agent.history);
  });

  it('per-tool limits: declared, per call (a command: its own timeout plus grace), the default, none for delegate_task', () => {
    const fs = new MemoryFs(['/ws'], {});
    const tools = createWorkspaceTools({
      fs,
      runner: new FakeCommandRunner(),
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true, platform: 'posix' },
      commandDefaultTimeoutSeconds: 100,
    });
    const limit = (name: string, args: unknown = {}) =>
      toolTimeLimitMs(
        tools.find((t) => t.name === name)!,
        args,
      );
    assert.equal(limit('read_file'), 30_000);
    assert.equal(limit('write_file'), 30_000);
    assert.equal(limit('apply_diff'), 30_000);
    assert.equal(limit('list_files'), 60_000);
    assert.equal(limit('search_files'), 60_000);
    assert.equal(limit('execute_command', { command: 'x' }), 115_000);
    assert.equal(limit('execute_command', { command: 'x', timeoutSeconds: 600 }), 615_000);
    assert.equal(toolTimeLimitMs(fakeReadTool(), {}), DEFAULT_TOOL_TIMEOUT_MS);
    assert.equal(
      toolTimeLimitMs(
        tool('delegate_task', async () => ({ content: '' })),
        {},
      ),
      0,
    );
    assert.equal(
      toolTimeLimitMs(
        tool('x', async () => ({ content: '' }), { timeoutMs: 0 }),
        {},
      ),
      0,
    );
  });

  it('forge.toolTimeoutSeconds raises the limits: one number, or per tool with "*" for the rest', () => {
    assert.equal(toolTimeoutSeconds('read_file', undefined), 30);
    assert.equal(toolTimeoutSeconds('read_file', 300), 300);
    assert.equal(toolTimeoutSeconds('search_files', { search_files: 600, '*': 90 }), 600);
    assert.equal(toolTimeoutSeconds('read_file', { search_files: 600, '*': 90 }), 90);
    assert.equal(toolTimeoutSeconds('list_files', { search_files: 600 }), 60);
    const fs = new MemoryFs(['/ws'], {});
    const tools = createWorkspaceTools({
      fs,
      runner: new FakeCommandRunner(),
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true, platform: 'posix' },
      toolTimeoutSeconds: { search_files: 600 },
    });
    assert.equal(
      toolTimeLimitMs(
        tools.find((t) => t.name === 'search_files')!,
        {},
      ),
      600_000,
    );
    assert.equal(
      toolTimeLimitMs(
        tools.find((t) => t.name === 'read_file')!,
        {},
      ),
      30_000,
    );
  });
});

describe('bounded tools: transient I/O errors and error classes', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: resource busy or locked, open '/ws/a'`), { code });

  it('classifies busy / try-again / out-of-handles errors as transient (EPERM only on Windows), others not', () => {
    for (const code of ['EBUSY', 'EAGAIN', 'EMFILE', 'ENFILE', 'ETXTBSY'])
      assert.equal(isTransientError(errno(code), 'linux'), true, code);
    assert.equal(isTransientError(errno('EPERM'), 'win32'), true);
    assert.equal(isTransientError(errno('EPERM'), 'linux'), false);
    assert.equal(isTransientError(errno('ENOENT'), 'linux'), false);
    assert.equal(isTransientError(new TransientToolError('x')), true);
    // vscode.FileSystemError carries the errno in its message only.
    assert.equal(
      isTransientError(Object.assign(new Error('EBUSY: resource busy or locked'), { code: 'Unknown' }), 'linux'),
      true,
    );
    assert.equal(classifyThrown(errno('ECONNREFUSED')), 'network');
    assert.equal(classifyThrown(new TypeError('fetch failed')), 'network');
    assert.equal(classifyThrown(new Error('boom')), 'tool');
  });

  it('an EBUSY thrown by a tool is retried with 1 s, 2 s backoff, then succeeds', async () => {
    let n = 0;
    const flaky = tool('flaky', async () => {
      if (++n < 3) throw errno('EBUSY');
      return { content: 'ok' };
    });
    const h = harness([callsTurn(['flaky', {}]), doneTurn()], { tools: [flaky] });
    const report = await h.agent.send('t');
    assert.equal(n, 3);
    assert.deepEqual(h.clock.sleeps, [1000, 2000]);
    assert.equal(report.steps[0]!.toolCalls[0]!.attempts, 3);
    assert.equal(report.steps[0]!.toolCalls[0]!.errorClass, undefined);
    assert.equal(h.ofType('tool_result')[0]!.content, 'ok');
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'retry').length, 2);
  });

  it('a transient error that never clears ends after the retries with the attempts named', async () => {
    const busy = tool('busy', async () => {
      throw errno('EMFILE');
    });
    const h = harness([callsTurn(['busy', {}]), doneTurn()], { tools: [busy] });
    const report = await h.agent.send('t');
    assert.deepEqual(h.clock.sleeps, [1000, 2000, 4000]);
    assert.match(h.ofType('tool_result')[0]!.content, /^busy failed after 4 attempts: EMFILE/);
    assert.equal(report.steps[0]!.toolCalls[0]!.errorClass, 'tool');
  });

  it('validation, permission, network, tool and timeout classes reach the result data, the event and the report', async () => {
    const net = tool('net', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    });
    const broken = tool('broken', async () => ({ content: 'it broke', isError: true }));
    const refusing = tool('refusing', async () => ({
      content: 'Refused: secret',
      isError: true,
      data: { refused: 'secret' },
    }));
    const writer = tool('writer', async () => ({ content: 'written' }), { risk: 'write' });
    const slow = tool('slow', () => new Promise(() => undefined), { timeoutMs: 30 });
    const h = harness(
      [
        callsTurn(
          ['net', {}],
          ['broken', {}],
          ['refusing', {}],
          ['net', { path: 42 }],
          ['writer', {}],
          ['slow', {}],
          ['nope', {}],
        ),
        doneTurn(),
      ],
      {
        tools: [net, broken, refusing, writer, slow],
        config: {
          policy: { byTool: { writer: 'deny' } },
          maxConsecutiveToolErrors: 100,
          errorRate: { threshold: 1, minCalls: 100 },
        },
      },
    );
    const report = await h.agent.send('t');
    const classes = report.steps[0]!.toolCalls.map((c) => [c.name, c.errorClass]);
    assert.deepEqual(classes, [
      ['net', 'network'],
      ['broken', 'tool'],
      ['refusing', 'permission'],
      ['net', 'validation'],
      ['writer', 'permission'],
      ['slow', 'timeout'],
      ['nope', 'validation'],
    ]);
    assert.deepEqual(
      h
        .ofType('tool_result')
        .filter((e) => e.isError)
        .map((e) => e.errorClass),
      classes.map((c) => c[1]),
    );
    assertHistoryConsistent(h.agent.history);
  });

  it('the class is added to the tool result data (object data kept, other data wrapped)', async () => {
    const refusing = tool('refusing', async () => ({
      content: 'Refused: secret',
      isError: true,
      data: { refused: 'secret' },
    }));
    const plain = tool('plain', async () => ({ content: 'no', isError: true, data: 'text' }));
    const fine = tool('fine', async () => ({ content: 'yes', data: { n: 1 } }));
    const registry = new ToolRegistry([refusing, plain, fine]);
    const ctx: ToolRunContext = {
      runId: 'r',
      taskId: 't',
      signal: new AbortController().signal,
      clock: new FakeClock(),
      config: resolveConfig(),
      registry,
      policy: new Policy(),
      approver: { request: async () => ({ kind: 'approve' }) },
      outputStore: new InMemoryOutputStore(),
      mode: getMode('agent'),
      allowedForTask: new Set(),
      history: [],
      iteration: 1,
      emit: () => undefined,
      nextApprovalId: () => 'a',
      setPending: () => undefined,
    };
    const run = (name: string) => runToolCall(ctx, { id: name, name, args: {}, rawArgs: '{}' } as StepToolCall, []);
    assert.deepEqual((await run('refusing')).result.data, { refused: 'secret', errorClass: 'permission' });
    assert.deepEqual((await run('plain')).result.data, { value: 'text', errorClass: 'tool' });
    assert.deepEqual((await run('fine')).result.data, { n: 1 });
  });

  it('a time-limited call leaves nothing registered on the run signal (hundreds of calls in one run retain nothing)', async () => {
    const run = new AbortController();
    for (let i = 0; i < 300; i++) await withTimeLimit(run.signal, 60_000, async (signal) => (signal.aborted ? -1 : i));
    await assert.rejects(
      withTimeLimit(run.signal, 60_000, () => Promise.reject(new Error('tool failed'))),
      /tool failed/,
    );
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
    // Still linked while a call runs: Stop reaches the call's signal.
    let seen: AbortSignal | undefined;
    const p = withTimeLimit(run.signal, 60_000, (signal) => {
      seen = signal;
      return new Promise(() => undefined);
    });
    await new Promise((r) => setImmediate(r));
    run.abort();
    await assert.rejects(p);
    assert.equal(seen?.aborted, true);
  });
});
