// The readiness gate: what commands and panel messages do while activation's disk work is still running.
import * as assert from 'node:assert/strict';
import { gatedTable, ReadinessGate } from '../../../../src/host/ui/readiness-gate';
import { PanelBridge } from '../../../../src/panel/bridge';
import type { HandledMessageType, WebviewHandlers } from '../../../../src/panel/webview-handlers';
import { WEBVIEW_MESSAGE_TYPES } from '../../../../src/protocol/messages';
import { fakeHandlers } from '../../panel/fake-handlers';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

type Table = {
  send(text: string): Promise<void>;
  newTask(): void;
  history(): Promise<void>;
  openPanel(): void;
  showLogs(): void;
};
type Session = { table: Omit<Table, 'openPanel' | 'showLogs'> };

function session(calls: string[]): Session {
  return {
    table: {
      send: async (text) => void calls.push(`send:${text}`),
      newTask: () => void calls.push('newTask'),
      history: async () => void calls.push('history'),
    },
  };
}

const KEYS = ['send', 'newTask', 'history', 'openPanel', 'showLogs'] as const;
const HANDLED = WEBVIEW_MESSAGE_TYPES.filter((t): t is HandledMessageType => t !== 'ready');

function table(gate: ReadinessGate<Session>, early: string[] = []): Table {
  const immediate = { openPanel: () => void early.push('panel'), showLogs: () => void early.push('logs') };
  return gatedTable<Table, 'openPanel' | 'showLogs', Session>(KEYS, immediate, gate, (s) => s.table);
}

describe('host/ReadinessGate', () => {
  it('a call made before initialisation waits for it, then reaches the session, in order', async () => {
    const ready = deferred<Session>();
    const calls: string[] = [];
    const gate = new ReadinessGate<Session>();
    gate.follow(ready.promise);
    const t = table(gate);
    const sent = t.send('hello');
    t.newTask();
    await tick();
    assert.deepEqual(calls, []);
    ready.resolve(session(calls));
    await sent;
    await tick();
    assert.deepEqual(calls, ['send:hello', 'newTask']);
  });

  it('after initialisation calls go straight through (synchronously)', async () => {
    const calls: string[] = [];
    const gate = new ReadinessGate<Session>();
    gate.follow(Promise.resolve(session(calls)));
    await tick();
    table(gate).newTask();
    assert.deepEqual(calls, ['newTask']);
  });

  it('the session is visible as soon as it exists, while calls still wait for it to be ready', async () => {
    const calls: string[] = [];
    const gate = new ReadinessGate<Session>();
    const s = session(calls);
    gate.provide(s);
    assert.equal(gate.current, s);
    table(gate).newTask();
    await tick();
    assert.deepEqual(calls, []);
    gate.follow(Promise.resolve(s));
    await tick();
    assert.deepEqual(calls, ['newTask']);
  });

  it('a failed initialisation rejects commands, logs panel messages, and still opens the panel', async () => {
    const ready = deferred<Session>();
    const early: string[] = [];
    const gate = new ReadinessGate<Session>();
    gate.follow(ready.promise);
    const t = table(gate, early);
    const history = t.history();
    // A panel message: the bridge does not await it, it logs its failure.
    const errors: string[] = [];
    const panelTable = gatedTable<WebviewHandlers, never, Session>(HANDLED, {}, gate, () => fakeHandlers());
    const bridge = new PanelBridge(panelTable, { info() {}, warn() {}, error: (m) => void errors.push(m) });
    bridge.connect(() => true).receive({ type: 'new_task' });
    ready.reject(new Error('disk full'));
    await assert.rejects(Promise.resolve(history), /disk full/);
    await tick();
    assert.deepEqual(errors, ["panel: handling 'new_task' failed: disk full"]);
    t.openPanel();
    t.showLogs();
    assert.deepEqual(early, ['panel', 'logs']);
  });
});
