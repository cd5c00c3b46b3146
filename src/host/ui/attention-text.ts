// What Forge says when it needs the user and they are not looking at the panel: an approval, a question, or the end
// of a run, in words (never an internal tool name). Pure, so the wording is tested without VS Code.
import type { AgentEvent } from '../../core/loop/events';

export interface AttentionNotice {
  kind: 'approval' | 'question' | 'ended';
  message: string;
  /** A warning (the run stopped on a problem) rather than news. */
  problem?: boolean;
  /** The approval an edit waits for: its diff can be brought to the front. */
  diffRequestId?: string;
}

const MAX = 140;

function clip(text: string, max = MAX): string {
  const line =
    text
      .trim()
      .split('\n')
      .find((l) => l.trim()) ?? '';
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

type ApprovalRequested = Extract<AgentEvent, { type: 'approval_requested' }>['request'];

function approvalWords(r: ApprovalRequested): { message: string; diff: boolean } {
  const p = r.preview;
  if (p?.kind === 'edit') {
    const file = p.displayPath ?? p.path;
    return { message: `Forge wants to ${p.isNewFile ? 'create' : 'edit'} ${clip(file)}.`, diff: true };
  }
  if (p?.kind === 'command') return { message: `Forge wants to run \`${clip(p.command, 100)}\`.`, diff: false };
  if (p?.kind === 'generic') return { message: `Forge asks for your approval: ${clip(p.summary)}`, diff: false };
  const what: Record<string, string> = {
    write: 'change files',
    execute: 'run a command',
    network: 'reach the network',
    read: 'read files',
  };
  return { message: `Forge wants to ${what[r.risk] ?? 'go on'} and waits for your approval.`, diff: false };
}

/** The notice an event calls for, or undefined (most events need nobody; Stop was the user's own doing). */
export function attentionFor(e: AgentEvent): AttentionNotice | undefined {
  if (e.type === 'approval_requested') {
    const { message, diff } = approvalWords(e.request);
    return { kind: 'approval', message, ...(diff ? { diffRequestId: e.request.id } : {}) };
  }
  if (e.type !== 'run_end') return undefined;
  const { reason, detail } = e.report;
  switch (reason) {
    case 'asked':
      return { kind: 'question', message: `Forge has a question: ${clip(detail)}` };
    case 'done':
      return { kind: 'ended', message: `Forge finished: ${clip(detail) || 'the task is done.'}` };
    case 'converse':
      return { kind: 'ended', message: `Forge replied: ${clip(detail)}` };
    case 'stopped':
      return undefined;
    default:
      return { kind: 'ended', problem: true, message: `Forge stopped: ${clip(detail)}` };
  }
}
