// A compaction a reload cut off: its summary never replaced the conversation, so the restored task is whole. The user
// who typed /compact (or saw the run compacting) is told it did not happen, rather than left guessing.
import type { AnswerLog } from './answer-log';

/** The notes for the panel, one per compaction cut off (each told once); none when there was none. */
export async function cutCompactionNotes(taskId: string, answers: AnswerLog | undefined): Promise<string[]> {
  const cut = answers ? await answers.cutCompactions(taskId).catch(() => []) : [];
  const auto = cut.some((c) => c.auto);
  const manual = cut.some((c) => !c.auto);
  return [
    manual
      ? 'Your /compact was cut off by the reload: the compaction did not happen. The conversation is whole, as it was before; run /compact again if you still want it.'
      : '',
    auto
      ? 'The run was compacting its context (summarising the earlier conversation) when it was cut off: the compaction did not happen and the conversation is whole. Continue compacts it again before the next step.'
      : '',
  ].filter(Boolean);
}
