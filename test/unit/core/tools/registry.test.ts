import assert from 'node:assert/strict';
import { z } from 'zod';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import {
  askQuestionTool,
  converseTool,
  loopControlTools,
  taskCompletionTool,
} from '../../../../src/core/tools/loop-control';
import { fakeReadTool } from '../../../support/loop-harness';

describe('core/tools registry', () => {
  it('produces JSON Schema tool specs from zod', () => {
    const reg = new ToolRegistry([fakeReadTool()]);
    const [spec] = reg.specs();
    assert.equal(spec.name, 'read_file');
    assert.deepEqual(spec.inputSchema.required, ['path']);
    assert.equal((spec.inputSchema.properties as Record<string, { type: string }>).path.type, 'string');
    assert.equal(spec.inputSchema.$schema, undefined);
  });

  it('rejects duplicate names', () => {
    const reg = new ToolRegistry([fakeReadTool()]);
    assert.throws(() => reg.register(fakeReadTool()), /already registered/);
  });

  it('validation failure quotes the zod issue path and message', () => {
    const reg = new ToolRegistry([
      {
        name: 'edit',
        description: 'x',
        risk: 'write',
        input: z.object({ path: z.string(), range: z.object({ start: z.number().int() }) }),
        execute: async () => ({ content: 'ok' }),
      },
    ]);
    const out = reg.validate('edit', { path: 3, range: { start: 'a' } });
    assert.equal(out.ok, false);
    if (out.ok) return;
    assert.equal(out.reason, 'invalid_args');
    assert.match(out.result.content, /- path: Invalid input: expected string, received number/);
    assert.match(out.result.content, /- range\.start: Invalid input: expected number, received string/);
    assert.equal(out.result.isError, true);
  });

  it('returns parsed data (defaults applied) on success', () => {
    const reg = new ToolRegistry([
      {
        name: 't',
        description: 'x',
        risk: 'read',
        input: z.object({ n: z.number().default(7) }),
        execute: async () => ({ content: '' }),
      },
    ]);
    const out = reg.validate('t', {});
    assert.ok(out.ok);
    if (out.ok) assert.deepEqual(out.input, { n: 7 });
  });

  it('unknown tool lists the available tools', () => {
    const reg = new ToolRegistry([fakeReadTool(), ...loopControlTools]);
    const out = reg.validate('nope', {});
    assert.equal(out.ok, false);
    if (!out.ok)
      assert.match(
        out.result.content,
        /Unknown tool "nope"\. Available tools: read_file, task_completion, ask_question, converse\./,
      );
  });

  it('loop-control tools are read-only, loop-breaking, and validated', () => {
    assert.equal(taskCompletionTool.loopControl, 'done');
    assert.equal(askQuestionTool.loopControl, 'asked');
    assert.equal(converseTool.loopControl, 'converse');
    for (const t of loopControlTools) assert.equal(t.risk, 'read');
    assert.equal(askQuestionTool.input.safeParse({ question: 'q', choices: ['a', 'b'] }).success, true);
    assert.equal(taskCompletionTool.input.safeParse({}).success, false);
  });
});
