// What the panel's history and setup need from the sessions: delete, tokens in the record, "no model" errors
// never saved, the mode published to the panel.
import * as assert from 'node:assert';
import { Agent } from '../../../../src/core/loop/agent';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { TaskSession, type SessionDeps } from '../../../../src/host/session/task-session';
import { SessionManager } from '../../../../src/host/session/session-manager';
import { FakeClock, ScriptedModel, doneTurn } from '../../../support/scripted-model';
import { ScriptedApprover } from '../../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];
const makeAgent = (model: ScriptedModel) => (snapshot?: AgentSnapshot) => {
  const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
  return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
};

describe('host/sessions for the panel', () => {
  it('the record carries the tokens spent and never the "no model" errors', async () => {
    const saved: TaskRecord[] = [];
    const s = TaskSession.create({
      makeAgent: makeAgent(new ScriptedModel([doneTurn('ok')])),
      save: async (r) => void saved.push(structuredClone(r)),
      log,
      saveDelayMs: 5,
    });
    s.transcript.addError('No chat model is available.', ['setup_model'], 'setup');
    s.transcript.addError('Forge is still working on this task.');
    await s.run('send', 'do it');
    const record = s.record();
    assert.ok((record.tokens ?? 0) > 0, `tokens ${record.tokens}`);
    const errors = (record.transcript as { items: { kind: string; message?: string }[] }).items.filter(
      (i) => i.kind === 'error',
    );
    assert.deepStrictEqual(
      errors.map((e) => e.message),
      ['Forge is still working on this task.'],
    );
    assert.strictEqual(
      s.transcript.getItems().filter((i) => i.kind === 'error').length,
      2,
      'the panel still shows it until a model works',
    );
  });

  it('delete removes a task from the store and republishes the history; the open task cannot be deleted', async () => {
    const removed: string[] = [];
    const published: string[][] = [];
    const modes: string[] = [];
    let list = [{ id: 'a', title: 'A', createdAt: 1, updatedAt: 2, mode: 'agent', status: 'done', tokens: 10 }];
    const store = {
      list: async () => list,
      load: async () => undefined,
      save: async () => undefined,
      flush: async () => undefined,
      remove: async (id: string) => {
        removed.push(id);
        list = list.filter((t) => t.id !== id);
      },
      onDidRemoveTasks: () => ({ dispose() {} }),
    } as unknown as ConstructorParameters<typeof SessionManager>[0]['store'];
    const manager = new SessionManager({ store, makeAgent: makeAgent(new ScriptedModel([])), log, saveDelayMs: 5 });
    manager.attach({
      attachTranscript() {},
      setHistory: (t) => published.push(t.map((x) => `${x.id}:${x.tokens}`)),
      setMode: (m) => modes.push(m),
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepStrictEqual(published.at(-1), ['a:10'], 'tokens reach the panel');
    assert.deepStrictEqual(modes, ['agent'], 'the mode is published with the task');
    await manager.remove('a');
    assert.deepStrictEqual(removed, ['a']);
    assert.deepStrictEqual(published.at(-1), []);
    await assert.rejects(manager.remove(manager.current.id), /open task/);
  });
});
