// DeferredController: what commands and panel messages do while activation's disk work is still running.
import * as assert from 'node:assert/strict';
import { DeferredController } from '../../../src/host/controller/deferred-controller';
import type { Controller } from '../../../src/host/controller/forge-controller';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const silentLog = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const tick = () => new Promise((r) => setImmediate(r));

function fakeController(calls: string[]): Controller {
  return {
    onSendMessage: async (text: string) => void calls.push(`send:${text}`),
    onNewTask: () => void calls.push('newTask'),
    showTaskHistory: async () => void calls.push('history'),
    openPanel: () => void calls.push('controller.openPanel'),
  } as unknown as Controller;
}

describe('host/DeferredController', () => {
  it('a panel message sent before initialisation waits for it and then reaches the controller', async () => {
    const ready = deferred<Controller>();
    const calls: string[] = [];
    const gate = new DeferredController(ready.promise, { openPanel() {}, openPanelInEditor() {}, showLogs() {} }, silentLog);
    const sent = gate.onSendMessage('hello', 'r1', new AbortController().signal);
    gate.onNewTask();
    await tick();
    assert.deepEqual(calls, []);
    ready.resolve(fakeController(calls));
    await sent;
    await tick();
    assert.deepEqual(calls, ['send:hello', 'newTask']);
  });

  it('after initialisation calls go straight through (synchronously)', async () => {
    const calls: string[] = [];
    const gate = new DeferredController(Promise.resolve(fakeController(calls)), { openPanel() {}, openPanelInEditor() {}, showLogs() {} }, silentLog);
    await tick();
    gate.onNewTask();
    assert.deepEqual(calls, ['newTask']);
  });

  it('a failed initialisation rejects commands, logs fire-and-forget panel messages, and still opens the panel', async () => {
    const ready = deferred<Controller>();
    const errors: string[] = [];
    const early: string[] = [];
    const gate = new DeferredController(
      ready.promise,
      { openPanel: () => void early.push('panel'), openPanelInEditor() {}, showLogs: () => void early.push('logs') },
      { ...silentLog, error: (m: string | Error) => void errors.push(String(m)) },
    );
    const history = gate.showTaskHistory();
    gate.onNewTask();
    ready.reject(new Error('disk full'));
    await assert.rejects(Promise.resolve(history), /disk full/);
    await tick();
    assert.equal(errors.length, 1);
    assert.match(errors[0], /new task failed: disk full/);
    gate.openPanel();
    gate.showLogs();
    assert.deepEqual(early, ['panel', 'logs']);
  });
});
