// Steering from the panel: a message typed while a run works either steers it (delivered at the next step) or waits
// in the queue above the composer (sent as the next message when the run ends, or as the answer when it asks), and an
// earlier message can be edited and resent (the conversation, and on request the files, go back to it first).
// The queue lives in the task's transcript state, so it is saved with the task and survives a reload.
import type { RunReport, TerminationReason } from '../../core/loop/events';
import type { Mention } from '../../core/mentions/mention';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers, WebviewMessageOf } from '../../panel/webview-handlers';
import { MAX_QUEUED, type QueuedMessage } from '../../protocol/messages';
import type { Recovery } from '../session/recovery';
import type { SessionManager } from '../session/session-manager';
import type { RunKind, TaskSession } from '../session/task-session';
import type { StagedImages } from './image-intake';
import {
  hasExtras,
  imagesOfQueued,
  mentionsOfQueued,
  prepareExtras,
  queuedParts,
  steerText,
  type PreparedExtras,
  type SteerAttachmentDeps,
  type SteerExtras,
} from './steer-attachments';

/** Endings after which the next queued message goes at once (the run finished or asks); not after Stop or a fault. */
const SENDS_QUEUE: ReadonlySet<TerminationReason> = new Set([
  'done',
  'asked',
  'converse',
  'max_iterations',
  'stagnation',
]);

interface SteeringDeps {
  manager(): SessionManager;
  recovery(): Recovery | undefined;
  panel(): ForgePanelProvider | undefined;
  start(
    kind: RunKind,
    text: string,
    signal?: AbortSignal,
    display?: string,
    mentions?: readonly Mention[],
  ): Promise<RunReport | undefined>;
  /** Images and chips typed with a steered or queued message (absent: only their words are taken). */
  attachments?: SteerAttachmentDeps;
}

let queued = 0;

export class SteeringActions {
  /** The staged images of waiting messages, by queue id (after a reload they are read back by hash). */
  private readonly held = new Map<string, StagedImages>();

  constructor(private readonly deps: SteeringDeps) {}

  private get session(): TaskSession {
    return this.deps.manager().current;
  }

  /** Checks and stores a waiting message's images and labels its chips; undefined (and the user told) when refused. */
  private async prepare(text: string, extras: SteerExtras): Promise<PreparedExtras | undefined> {
    const s = this.session;
    const a = this.deps.attachments;
    const prepared = a ? await prepareExtras(a, extras) : { error: 'images and chips cannot wait here' };
    if (!('error' in prepared)) return prepared;
    void this.deps.panel()?.prefill(text);
    s.transcript.addError(`${prepared.error} Your message is back in the input box.`);
    return undefined;
  }

  /** Steers the running task; with none running (it just ended) the text is sent as a message. */
  steer(text: string, extras?: SteerExtras): void | Promise<void> {
    if (hasExtras(extras)) return this.steerWith(text, extras);
    const s = this.session;
    const id = s.running ? s.steer(text) : undefined;
    if (!id) {
      void this.deps.start('send', text);
      return;
    }
    s.setQueue([...s.transcript.queued, { id, text, steer: true }]);
  }

  /** A steer with images and chips: the model gets the images and the chips' context at its next step. */
  private async steerWith(text: string, extras: SteerExtras): Promise<void> {
    const s = this.session;
    const prepared = await this.prepare(text, extras);
    if (!prepared) return;
    const words = this.deps.attachments ? await steerText(this.deps.attachments, text, prepared.mentions) : text;
    if (typeof words !== 'string') {
      void this.deps.panel()?.prefill(text, prepared.chips);
      s.transcript.addError(`Your message was not sent: ${words.error} Your message is back in the input box.`);
      return;
    }
    const id = s.running ? s.steer(words, prepared.staged?.parts) : undefined;
    if (!id) {
      s.stageImages(prepared.staged);
      void this.deps.start('send', text, undefined, undefined, prepared.mentions);
      return;
    }
    if (prepared.staged) this.held.set(id, prepared.staged);
    s.setQueue([...s.transcript.queued, { id, text, steer: true, ...queuedParts(prepared) }]);
  }

  /** Queues a message for when the run ends; with none running it is sent now. */
  add(text: string, extras?: SteerExtras): void | Promise<void> {
    if (hasExtras(extras)) return this.addWith(text, extras);
    const s = this.session;
    if (!s.running) {
      void this.deps.start('send', text);
      return;
    }
    if (s.transcript.queued.length >= MAX_QUEUED) {
      void this.deps.panel()?.prefill(text);
      s.transcript.addError(
        `${MAX_QUEUED} messages are already waiting; your message is back in the input box. Send it when the task ends.`,
      );
      return;
    }
    s.setQueue([...s.transcript.queued, { id: `queued-${Date.now().toString(36)}-${++queued}`, text }]);
  }

  private async addWith(text: string, extras: SteerExtras): Promise<void> {
    const s = this.session;
    const prepared = await this.prepare(text, extras);
    if (!prepared) return;
    if (!s.running) {
      s.stageImages(prepared.staged);
      void this.deps.start('send', text, undefined, undefined, prepared.mentions);
      return;
    }
    if (s.transcript.queued.length >= MAX_QUEUED) {
      void this.deps.panel()?.prefill(text, prepared.chips);
      s.transcript.addError(
        `${MAX_QUEUED} messages are already waiting; your message is back in the input box. Send it when the task ends.`,
      );
      return;
    }
    const id = `queued-${Date.now().toString(36)}-${++queued}`;
    if (prepared.staged) this.held.set(id, prepared.staged);
    s.setQueue([...s.transcript.queued, { id, text, ...queuedParts(prepared) }]);
  }

  /** A queued message's new text (a steer on its way to the model cannot change any more). */
  update(id: string, text: string): void {
    const s = this.session;
    s.setQueue(s.transcript.queued.map((q) => (q.id === id && !q.steer ? { ...q, text } : q)));
  }

  remove(id: string): void {
    const s = this.session;
    if (s.transcript.queued.some((q) => q.id === id && !q.steer)) this.held.delete(id);
    s.setQueue(s.transcript.queued.filter((q) => q.id !== id || q.steer));
  }

  /**
   * A run ended: steers it never delivered become queued messages, then the first one waiting is sent. It stays in
   * the queue until the new run's user message joins the conversation, and leaves it in that same change: a crash
   * at any moment finds it in one place, never in both and never in neither.
   */
  afterRun(session: TaskSession, report: RunReport): void {
    session.takeUndelivered();
    // Delivered steers left the queue; what stays is plain queued messages, with their images and chips.
    for (const id of this.held.keys()) if (!session.transcript.queued.some((q) => q.id === id)) this.held.delete(id);
    const queue: QueuedMessage[] = session.transcript.queued.map(({ steer: _steer, ...q }) => q);
    if (!queue.length) return;
    session.setQueue(queue);
    if (!SENDS_QUEUE.has(report.reason) || session !== this.session || session.running) return;
    const next = queue[0];
    session.sendFromQueue(next);
    if (next.images?.length) void this.sendWithImages(session, next);
    else void this.deps.start('send', next.text, undefined, undefined, mentionsOfQueued(next));
  }

  /** A waiting message with images: its images are staged (read back by hash after a reload), then it is sent. */
  private async sendWithImages(session: TaskSession, q: QueuedMessage): Promise<void> {
    const staged = await imagesOfQueued(q, this.held, this.deps.attachments?.images() ?? {});
    if (staged && 'error' in staged) {
      session.transcript.addError(
        `The waiting message was not sent: ${staged.error}. Remove it from the queue, or attach the image again.`,
      );
      return;
    }
    this.held.delete(q.id);
    session.stageImages(staged);
    await this.deps.start('send', q.text, undefined, undefined, mentionsOfQueued(q));
  }

  /** Edit and resend: back to before the message (and, when asked, its files), then the new text is sent. */
  async editResend(m: WebviewMessageOf<'edit_resend'>, signal?: AbortSignal): Promise<void> {
    const s = this.session;
    if (s.running) {
      s.transcript.addError('Forge is working on this task: stop it before editing an earlier message.');
      return;
    }
    const rewound = s.rewindToMessage(m.itemId);
    if (!rewound) {
      void this.deps.panel()?.prefill(m.text);
      s.transcript.addError(
        'That message can no longer be edited: the conversation was compacted since, or it is from an older task. Your text is in the input box.',
      );
      return;
    }
    if (rewound.toolCallIds.length) {
      const restored = m.restoreFiles
        ? await this.deps.recovery()?.restoreBeforeCalls(s.id, rewound.toolCallIds)
        : undefined;
      if (!restored)
        s.addNote(
          'The user went back to an earlier message and changed it; files you changed after that message keep those changes. Re-read files before editing them.',
        );
    }
    await this.deps.start('send', m.text, signal);
  }
}

export function steeringMessages(actions: SteeringActions) {
  return {
    steer_message: (m) => actions.steer(m.text, m),
    queue_add: (m) => actions.add(m.text, m),
    queue_update: (m) => actions.update(m.id, m.text),
    queue_remove: (m) => actions.remove(m.id),
    edit_resend: (m, signal) => actions.editResend(m, signal),
  } satisfies Partial<WebviewHandlers>;
}
