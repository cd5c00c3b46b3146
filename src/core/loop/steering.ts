// Steering: what the user types while a run works, delivered at the next step boundary as their own words, without
// stopping the run. The Agent holds the inbox; the run drains it before each model step.
import type { ChatMessage, ImagePart } from '../model/types';
import type { AgentEvent } from './events';

export interface SteerMessage {
  /** The user turn's id (the panel's edit-and-resend finds the message by it). */
  turnId: string;
  text: string;
  /** Images the user attached to it (the model gets them with the words). */
  images?: ImagePart[];
}

export class SteerInbox {
  private readonly waiting: SteerMessage[] = [];

  push(message: SteerMessage): void {
    this.waiting.push(message);
  }

  get size(): number {
    return this.waiting.length;
  }

  /** Everything waiting, oldest first; the inbox is empty afterwards. */
  take(): SteerMessage[] {
    return this.waiting.splice(0);
  }
}

/** A step boundary: each waiting message joins the history as a user turn, and the panel is told. */
export function deliverSteers(
  inbox: SteerInbox | undefined,
  history: ChatMessage[],
  runId: string,
  emit: (e: AgentEvent) => void,
): number {
  const messages = inbox?.take() ?? [];
  for (const m of messages) {
    history.push({
      role: 'user',
      content: m.text,
      turnId: m.turnId,
      ...(m.images?.length ? { images: m.images } : {}),
    });
    emit({ type: 'user_steer', runId, turnId: m.turnId, text: m.text });
  }
  return messages.length;
}

/** Endings a waiting steer overrides: the user said more before the model's "done" reached them. */
export function steerKeepsGoing(reason: string, inbox: SteerInbox | undefined): boolean {
  return !!inbox?.size && (reason === 'done' || reason === 'converse');
}
