// "Always for this task" grants what the tool says it grants (prepare's grantKeys), not the whole tool: a command's
// program and subcommand, say. A tool without grant keys is still granted by name. Grants survive dump/restore.
import assert from 'node:assert/strict';
import * as z from 'zod';
import type { Tool } from '../../../../src/core/tools/types';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { fakeWriteTool, harness, ScriptedApprover } from '../../../support/loop-harness';

const input = z.object({ program: z.string(), hazard: z.boolean().optional() });

/** A command-like tool: grants its program unless the call carries a hazard; policy allows granted programs. */
function commandLike(ran: string[]): Tool<typeof input> {
  return {
    name: 'run',
    description: 'runs a program',
    input,
    risk: 'execute',
    prepare: async (i) => ({
      kind: 'ready',
      grantKeys: i.hazard ? [] : [i.program],
      policyHint: (grants) =>
        !i.hazard && grants.has(i.program) ? { action: 'allow', reason: `granted: ${i.program}` } : undefined,
    }),
    async execute(i) {
      ran.push(i.program);
      return { content: `ran ${i.program}` };
    },
  };
}

describe('core/loop task grants (Always for this task)', () => {
  it('grants only what the tool names: the same program runs unasked, another program and a hazard still ask', async () => {
    const ran: string[] = [];
    const approver = new ScriptedApprover([
      { kind: 'approve', scope: 'task' },
      { kind: 'approve' },
      { kind: 'approve' },
    ]);
    const h = harness(
      [
        callsTurn(['run', { program: 'git commit' }]),
        callsTurn(
          ['run', { program: 'git commit' }],
          ['run', { program: 'curl' }],
          ['run', { program: 'git commit', hazard: true }],
        ),
        doneTurn(),
      ],
      { tools: [commandLike(ran) as unknown as Tool] },
      approver,
    );
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.deepEqual(
      approver.requests.map((r) => (r.args as { program: string }).program),
      ['git commit', 'curl', 'git commit'],
    );
    assert.deepEqual(ran, ['git commit', 'git commit', 'curl', 'git commit']);
    assert.deepEqual(
      [...h.agent.dump().allowedForTask],
      ['run:git commit'],
      'stored as tool:key, so it survives a reload',
    );
  });

  it('a tool without grant keys is still granted whole, by name', async () => {
    const writes: { path: string; content: string }[] = [];
    const approver = new ScriptedApprover([{ kind: 'approve', scope: 'task' }]);
    const h = harness(
      [
        callsTurn(['write_file', { path: 'a', content: '1' }]),
        callsTurn(['write_file', { path: 'b', content: '2' }]),
        doneTurn(),
      ],
      { tools: [fakeWriteTool(writes)] },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 1);
    assert.deepEqual(
      writes.map((w) => w.path),
      ['a', 'b'],
    );
  });
});
