// A sub-agent's events (delegate_task) fold into the same transcript, nested under the delegate card.
import type { AgentEvent } from '../../core/loop/events';
import type { PatchOp } from '../../protocol/messages';
import type { TranscriptItems } from './items';
import type { StreamedText } from './stream';
import type { ToolCards } from './tool-cards';

/** The transcript's core fold, which a sub-agent's events go through once they are namespaced. */
export interface NestedFoldHost {
  items: TranscriptItems;
  cards: Pick<ToolCards, 'tool'>;
  stream: Pick<StreamedText, 'close'>;
  fold(ops: PatchOp[], e: AgentEvent): void;
}

/**
 * Its items carry the delegate card's id as parentId, its tool call ids are namespaced by the parent call (a
 * child's "call_1" is not the parent's), and its run boundaries and progress do not touch the parent's status:
 * the parent's card shows the child's result when the call returns.
 */
export function foldSubAgentEvent(host: NestedFoldHost, ops: PatchOp[], parentCallId: string, e: AgentEvent): void {
  const { items, cards } = host;
  const ns = (id: string) => `${parentCallId}>${id}`;
  switch (e.type) {
    case 'run_start':
    case 'iteration':
    case 'step_start':
    case 'sub_agent':
      host.stream.close(ops);
      return;
    case 'run_end': {
      host.stream.close(ops);
      const parent = cards.tool(parentCallId)?.id;
      if (parent === undefined) return;
      for (const item of items.all()) {
        if (
          item.kind === 'tool' &&
          item.parentId === parent &&
          (item.status === 'pending' || item.status === 'running' || item.status === 'awaiting_approval')
        ) {
          items.update(ops, { ...item, status: 'cancelled' });
        }
      }
      return;
    }
  }
  let inner: AgentEvent = e;
  if (
    e.type === 'tool_call_start' ||
    e.type === 'tool_call_args_delta' ||
    e.type === 'tool_call_end' ||
    e.type === 'tool_progress' ||
    e.type === 'tool_result'
  ) {
    inner = { ...e, id: ns(e.id) };
  } else if (e.type === 'approval_requested') {
    inner = { ...e, request: { ...e.request, toolCallId: ns(e.request.toolCallId) } };
  } else if (e.type === 'warning' && e.key !== undefined) {
    inner = { ...e, key: ns(e.key) };
  }
  const outer = items.nestParent;
  items.nestParent = cards.tool(parentCallId)?.id;
  try {
    host.fold(ops, inner);
  } finally {
    items.nestParent = outer;
  }
}
