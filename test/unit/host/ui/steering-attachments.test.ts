// Steered and queued messages carry the composer's images and @-chips: a steer's images and chip context reach the
// model at the next step and the transcript shows its thumbnails and chips (not the context); a queued message
// keeps them in the queue (images by hash, so a reload reads them back from the image store) and sends them when
// the run ends; a model that takes no images refuses them before anything waits.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../../../src/core/loop/agent';
import type { RunReport } from '../../../../src/core/loop/events';
import type { Mention } from '../../../../src/core/mentions/mention';
import { messageWithContext } from '../../../../src/core/mentions/resolve';
import type { ChatMessage, ModelInfo } from '../../../../src/core/model/types';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { TaskSession, type RunKind, type SessionDeps } from '../../../../src/host/session/task-session';
import { SteeringActions } from '../../../../src/host/ui/steering-actions';
import { ImageStore } from '../../../../src/node/image-store';
import type { ImageAttachment } from '../../../../src/protocol/images';
import { callsTurn, doneTurn, FakeClock, ScriptedModel, type Turn } from '../../../support/scripted-model';
import { fakeReadTool, ScriptedApprover } from '../../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGE: ImageAttachment = {
  mediaType: 'image/png',
  data: PNG_B64,
  width: 1,
  height: 1,
  name: 'shot.png',
  thumb: `data:image/png;base64,${PNG_B64}`,
};
const CHIP = { kind: 'file', path: 'src/a.ts' } as const;

const mentions = {
  chip: (m: Mention) => ({ mention: m, label: 'a.ts' }),
  resolve: async () => ({ ok: true as const, text: '<file src/a.ts>export const a = 1;</file>', blocks: [] }),
};

function setup(turns: Turn[], store: ImageStore, info: Partial<ModelInfo> = { images: true }) {
  const model = new ScriptedModel(turns, info);
  const session = TaskSession.create({
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [fakeReadTool()], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    save: async () => undefined,
    log,
    saveDelayMs: 5,
  });
  const started: { text: string; mentions?: readonly Mention[] }[] = [];
  const runs: Promise<RunReport | undefined>[] = [];
  const prefilled: string[] = [];
  const make = (): SteeringActions =>
    new SteeringActions({
      manager: () => ({ current: session }) as never,
      recovery: () => undefined,
      panel: () => ({ prefill: async (t: string) => void prefilled.push(t) }) as never,
      // As RunControl.start does: the chips' context joins the message; the transcript shows the text and chips.
      start: async (kind: RunKind, text: string, _s?: AbortSignal, _d?: string, ms?: readonly Mention[]) => {
        started.push({ text, ...(ms ? { mentions: ms } : {}) });
        const message = ms?.length ? messageWithContext(text, (await mentions.resolve()).text) : text;
        const run = session.run(kind, message, undefined, ms?.length ? text : undefined, ms?.map(mentions.chip));
        runs.push(run);
        const report = await run;
        if (report) t.actions.afterRun(session, report);
        return report;
      },
      attachments: { model: () => model.info, images: () => store, mentions: () => mentions },
    });
  const t = { session, model, started, runs, prefilled, actions: make(), make };
  return t;
}

const settle = () => new Promise((r) => setTimeout(r, 30));
const userTurns = (messages: readonly ChatMessage[]) =>
  messages.filter((m): m is Extract<ChatMessage, { role: 'user' }> => m.role === 'user');

describe('host/steering: images and chips go with a steered or queued message', () => {
  let dir: string;
  let store: ImageStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-steer-img-'));
    store = new ImageStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a steer delivers its image and the chip context at the next step; the transcript shows thumb and chip', async () => {
    let steering: Promise<void> | void = undefined;
    const t: ReturnType<typeof setup> = setup(
      [
        () => {
          steering = t.actions.steer('look at this too', { images: [IMAGE], mentions: [CHIP] });
          return { events: callsTurn(['read_file', { path: 'a' }]), delayMs: 50 };
        },
        doneTurn('ok'),
      ],
      store,
    );
    const report = await t.session.run('send', 'read a');
    await steering;
    assert.equal(report?.reason, 'done');
    const steered = userTurns(t.model.requests[1]!.messages).at(-1)!;
    assert.match(steered.content, /^look at this too\n\n[\s\S]*export const a = 1;/);
    assert.equal(steered.images?.[0]?.data, PNG_B64);
    assert.deepEqual(t.session.transcript.queued, []);
    const item = t.session.transcript
      .getItems()
      .filter((it) => it.kind === 'user')
      .at(-1)!;
    assert.ok(item.kind === 'user');
    assert.equal(item.text, 'look at this too');
    assert.equal(item.steered, true);
    assert.deepEqual(item.images, [{ thumb: IMAGE.thumb, width: 1, height: 1, name: 'shot.png' }]);
    assert.deepEqual(item.mentions, [{ mention: CHIP, label: 'a.ts' }]);
  });

  it('a queued message keeps its image (by hash) and chip, and sends them when the run ends', async () => {
    let adding: Promise<void> | void = undefined;
    const t: ReturnType<typeof setup> = setup(
      [
        () => {
          adding = t.actions.add('then this', { images: [IMAGE], mentions: [CHIP] });
          return { events: doneTurn('first done'), delayMs: 20 };
        },
        doneTurn('second done'),
      ],
      store,
    );
    const first = t.session.run('send', 'start');
    await settle(); // the model's turn has run: the message is on its way to the queue
    await adding;
    const waiting = t.session.transcript.queued[0]!;
    assert.equal(waiting.text, 'then this');
    assert.match(waiting.images?.[0]?.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(waiting.mentions, [{ mention: CHIP, label: 'a.ts' }]);
    const report = await first;
    t.actions.afterRun(t.session, report!);
    await settle();
    await Promise.all(t.runs);
    assert.deepEqual(
      t.started.map((s) => [s.text, s.mentions]),
      [['then this', [CHIP]]],
    );
    const sent = userTurns(t.model.requests[1]!.messages).at(-1)!;
    assert.match(sent.content, /^then this\n\n[\s\S]*export const a = 1;/);
    assert.equal(sent.images?.[0]?.data, PNG_B64);
    assert.deepEqual(t.session.transcript.queued, []);
  });

  it('after a reload the queued image is read back from the image store by its hash', async () => {
    let adding: Promise<void> | void = undefined;
    const t: ReturnType<typeof setup> = setup(
      [
        () => {
          adding = t.actions.add('with the picture', { images: [IMAGE] });
          return { events: doneTurn('first done'), delayMs: 20 };
        },
        doneTurn('second done'),
      ],
      store,
    );
    const first = t.session.run('send', 'start');
    await settle(); // the model's turn has run: the message is on its way to the queue
    await adding;
    const report = await first;
    // A fresh SteeringActions holds nothing in memory, as after a reload.
    t.actions = t.make();
    t.actions.afterRun(t.session, report!);
    await settle();
    await Promise.all(t.runs);
    assert.equal(userTurns(t.model.requests[1]!.messages).at(-1)!.images?.[0]?.data, PNG_B64);
  });

  it('a model that takes no images refuses them before anything waits; the text goes back to the input', async () => {
    let adding: Promise<void> | void = undefined;
    const t: ReturnType<typeof setup> = setup(
      [
        () => {
          adding = t.actions.add('see picture', { images: [IMAGE] });
          return { events: doneTurn('done'), delayMs: 20 };
        },
      ],
      store,
      { images: false },
    );
    const run = t.session.run('send', 'start');
    await settle();
    await adding;
    await run;
    assert.deepEqual(t.session.transcript.queued, []);
    assert.deepEqual(t.prefilled, ['see picture']);
    const errors = t.session.transcript.getItems().filter((it) => it.kind === 'error');
    assert.match(JSON.stringify(errors), /does not accept images/);
  });
});
