// An MCP tool call a crash cut off is reported as of unknown outcome, with its server, tool and arguments (the server
// may finish it after the reload), never as a bare "interrupted"; a finished call leaves nothing to report.
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { CommandLog } from '../../../src/core/tasks/command-log';
import { recordingTool } from '../../../src/core/tasks/effects';
import { EditJournal } from '../../../src/core/tasks/journal';
import { reconcileTask } from '../../../src/core/tasks/recovery';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import type { Tool } from '../../../src/core/tools/types';
import { InMemoryTasksIO } from '../../support/memory-tasks-io';

const mcpTool = (execute: Tool['execute']): Tool => ({
  name: 'mcp_tickets_create',
  description: 'Create a ticket',
  input: z.object({ title: z.string() }),
  risk: 'network',
  execute,
});

function taskWithCall(id: string): TaskRecord {
  const call = { id: 'call_m', name: 'mcp_tickets_create', args: { title: 'Flaky test' } as never, rawArgs: '{}' };
  const snapshot: AgentSnapshot = {
    version: 1,
    taskId: id,
    mode: 'agent',
    history: [
      { role: 'user', content: 'File a ticket' },
      { role: 'assistant', content: 'Filing it.', toolCalls: [call] },
    ],
    iterations: 1,
    maxIterations: 25,
    allowedForTask: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    counters: { runs: 1, approvals: 0 },
  };
  return { id, title: 'File a ticket', createdAt: 1, updatedAt: 2, mode: 'agent', status: 'running', snapshot };
}

describe('durability: calls with effects outside Forge (MCP tools)', () => {
  it('a call cut off by a crash: unknown outcome, with its server, tool and arguments, reported once', async () => {
    const io = new InMemoryTasksIO();
    const commands = new CommandLog('/store/commands', { io });
    const journal = await EditJournal.open('/store', { io });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tool = recordingTool(
      mcpTool(() => {
        started();
        return new Promise(() => undefined); // the crash: no result ever comes back
      }),
      async () => commands,
      { name: 'create_ticket', server: 'tickets' },
    );
    void tool.execute({ title: 'Flaky test' }, {
      signal: new AbortController().signal,
      taskId: 't',
      toolCallId: 'call_m',
    } as never);
    await running;

    const r = await reconcileTask(taskWithCall('t'), { journal, commands, probe: { readDisk: async () => null } });
    const result = (r.record.snapshot as AgentSnapshot).history.at(-1);
    assert.equal(result?.role, 'tool');
    assert.equal((result as { isError?: boolean }).isError, true);
    assert.match(
      String(result?.content),
      /^Unknown outcome: Forge was reloaded while the MCP tool "create_ticket" of server "tickets" was running/,
    );
    assert.match(String(result?.content), /Arguments: \{"title":"Flaky test"\}/);
    assert.match(String(result?.content), /Do NOT call it again blindly/);
    assert.doesNotMatch(String(result?.content), /Interrupted/);
    assert.deepEqual(r.notes, [
      'A call of the MCP tool "create_ticket" of server "tickets" was cut off by the reload: its outcome is unknown. The model was told to check before calling it again.',
    ]);
    // Reported once: a second restore finds nothing open.
    const again = await reconcileTask(taskWithCall('t'), { journal, commands, probe: { readDisk: async () => null } });
    assert.deepEqual(again.notes, []);
  });

  it('a finished call, success or failure, leaves nothing open', async () => {
    const io = new InMemoryTasksIO();
    const commands = new CommandLog('/store/commands', { io });
    const ok = recordingTool(
      mcpTool(async () => ({ content: 'created #12' })),
      async () => commands,
      {
        name: 'create_ticket',
        server: 'tickets',
      },
    );
    const ctx = { signal: new AbortController().signal, taskId: 't', toolCallId: 'c1' } as never;
    assert.equal((await ok.execute({ title: 'x' }, ctx)).content, 'created #12');
    const failing = recordingTool(
      mcpTool(async () => {
        throw new Error('transport closed');
      }),
      async () => commands,
      { name: 'create_ticket', server: 'tickets' },
    );
    await assert.rejects(failing.execute({ title: 'x' }, { ...(ctx as object), toolCallId: 'c2' } as never));
    assert.deepEqual(await commands.interrupted('t'), []);
  });
});
