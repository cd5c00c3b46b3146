// A compaction's start is recorded in the answer log at once, and its end only once the task is saved with what
// it did: a reload in between finds it open and tells the user the compaction did not happen (cut-compaction.ts).
import type { AgentEvent } from '../../core/loop/events';
import type { AnswerLog } from '../../core/tasks/answer-log';

type Marks = Pick<AnswerLog, 'compactionBegun' | 'compactionEnded'>;

/** Records a `compacting` event of `session`'s task; other events are ignored. */
export function markCompaction(session: { id: string; save(): Promise<void> }, e: AgentEvent, marks: Marks): void {
  if (e.type !== 'compacting') return;
  const taskId = session.id;
  if (e.phase === 'begin') void marks.compactionBegun(taskId, e.runId, e.auto);
  else void session.save().then(() => marks.compactionEnded(taskId, e.runId));
}
