// Steering from the panel: a message typed while a run works either steers it (delivered at the next step) or waits
// in the queue above the composer (sent as the next message when the run ends, or as the answer when it asks), and an
// earlier message can be edited and resent (the conversation, and on request the files, go back to it first).
// The queue lives in the task's transcript state, so it is saved with the task and survives a reload.
import type { RunReport, TerminationReason } from '../../core/loop/events';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers, WebviewMessageOf } from '../../panel/webview-handlers';
import { MAX_QUEUED, type QueuedMessage } from '../../protocol/messages';
import type { Recovery } from '../session/recovery';
import type { SessionManager } from '../session/session-manager';
import type { RunKind, TaskSession } from '../session/task-session';

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
  start(kind: RunKind, text: string, signal?: AbortSignal): Promise<RunReport | undefined>;
}

let queued = 0;

export class SteeringActions {
  constructor(private readonly deps: SteeringDeps) {}

  private get session(): TaskSession {
    return this.deps.manager().current;
  }

  /** Steers the running task; with none running (it just ended) the text is sent as a message. */
  steer(text: string): void {
    const s = this.session;
    const id = s.running ? s.steer(text) : undefined;
    if (!id) {
      void this.deps.start('send', text);
      return;
    }
    s.setQueue([...s.transcript.queued, { id, text, steer: true }]);
  }

  /** Queues a message for when the run ends; with none running it is sent now. */
  add(text: string): void {
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

  /** A queued message's new text (a steer on its way to the model cannot change any more). */
  update(id: string, text: string): void {
    const s = this.session;
    s.setQueue(s.transcript.queued.map((q) => (q.id === id && !q.steer ? { ...q, text } : q)));
  }

  remove(id: string): void {
    const s = this.session;
    s.setQueue(s.transcript.queued.filter((q) => q.id !== id || q.steer));
  }

  /**
   * A run ended: steers it never delivered become queued messages, then the first one waiting is sent. It stays in
   * the queue until the new run's user message joins the conversation, and leaves it in that same change: a crash
   * at any moment finds it in one place, never in both and never in neither.
   */
  afterRun(session: TaskSession, report: RunReport): void {
    session.takeUndelivered();
    const queue: QueuedMessage[] = session.transcript.queued.map(({ id, text }) => ({ id, text }));
    if (!queue.length) return;
    session.setQueue(queue);
    if (!SENDS_QUEUE.has(report.reason) || session !== this.session || session.running) return;
    session.sendFromQueue(queue[0]);
    void this.deps.start('send', queue[0].text);
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
    steer_message: (m) => actions.steer(m.text),
    queue_add: (m) => actions.add(m.text),
    queue_update: (m) => actions.update(m.id, m.text),
    queue_remove: (m) => actions.remove(m.id),
    edit_resend: (m, signal) => actions.editResend(m, signal),
  } satisfies Partial<WebviewHandlers>;
}
