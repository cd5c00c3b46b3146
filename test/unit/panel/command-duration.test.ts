// One duration for a command: the Forge terminal's end line, the tool's result and the panel row show the runner's
// own measure (RunResult.elapsedMs), not three clocks started at different moments.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../../src/core/loop/events';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import type { CommandRunner, RunResult } from '../../../src/core/workspace/types';
import { DiskEditApplier, NodeWorkspaceFs } from '../../../src/node';
import { formatElapsed } from '../../../src/node/terminal-text';
import { Transcript } from '../../../src/panel/transcript';
import { byName, call, ctx } from '../../support/tool-context';
import { formatDuration } from '../../../webview-ui/src/dom';

const R = 'run-1';

describe('a command row and the Forge terminal show one duration', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'forge-dur-'));
    mkdirSync(path.join(dir, 'ws'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("execute_command reports the runner's elapsed time, in its text and its data", async () => {
    const runner: CommandRunner = {
      run: async (): Promise<RunResult> => ({ exitCode: 0, output: 'ok\n', timedOut: false, elapsedMs: 2345 }),
    };
    const tools = createWorkspaceTools({
      fs: new NodeWorkspaceFs([path.join(dir, 'ws')]),
      runner,
      applier: new DiskEditApplier(),
      sandbox: { trusted: true },
    });
    const r = await call(byName(tools, 'execute_command'), { command: 'echo ok' }, ctx());
    assert.match(r.content, /Exit code: 0 \(2\.3 s\)/);
    assert.equal((r.data as { elapsedMs?: number }).elapsedMs, 2345);
  });

  it("the row's duration is the runner's figure, not the call's latency", () => {
    const t = new Transcript({ now: () => 1000 });
    const events: AgentEvent[] = [
      { type: 'run_start', runId: R, taskId: 't1', mode: 'implement', maxIterations: 25, userMessage: 'build' },
      { type: 'step_start', runId: R, iteration: 1, maxIterations: 25 },
      { type: 'tool_call_start', runId: R, id: 'c1', name: 'execute_command' },
      { type: 'tool_call_end', runId: R, id: 'c1', name: 'execute_command', args: { command: 'npm test' } },
      {
        type: 'tool_result',
        runId: R,
        id: 'c1',
        name: 'execute_command',
        content: '$ npm test\nExit code: 0 (2.3 s)\nok',
        isError: false,
        latencyMs: 2600,
        data: { exitCode: 0, elapsedMs: 2345 },
      },
    ];
    for (const e of events) t.apply(e);
    const row = t.getItems().find((i) => i.kind === 'tool');
    assert.equal(row?.kind === 'tool' ? row.durationMs : undefined, 2345);
  });

  it("the terminal writes a duration as the panel's row does", () => {
    for (const ms of [0, 42, 999, 1000, 2345, 9999, 12_345, 59_999, 61_000, 3_725_000])
      assert.equal(formatElapsed(ms), formatDuration(ms), `${ms} ms`);
  });
});
