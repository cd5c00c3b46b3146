// A run a reload cut off after its work was over: the model had ended it with a loop-control call (task_completion,
// ask_question, converse) and that call had its result, so only the run's close was left (the reflection that draws
// lessons for the memory, then run_end and its save). Such a task is finished, not interrupted: telling the user to
// press Continue would be untrue, and continuing would ask the model to redo a finished task.
import type { RunReport, TerminationReason } from '../loop/events';
import type { ChatMessage } from '../model/types';

const LOOP_CONTROL: Record<string, TerminationReason> = {
  task_completion: 'done',
  ask_question: 'asked',
  converse: 'converse',
};

/** Whether a call of this tool ends the run (its result is the run's answer). */
export function endsRun(toolName: string): boolean {
  return Object.hasOwn(LOOP_CONTROL, toolName);
}

/** What the saved panel knew of the run (its progress line). */
export interface EndedRunProgress {
  iteration: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  elapsedMs: number;
}

/** The user's note for such a task (the panel's; the model is told nothing: its conversation is whole). */
export const ENDED_RUN_NOTE =
  'Forge was reloaded just after this run ended, while it drew lessons from it for the workspace memory: the run and its result are kept as shown. A lesson from this run may be missing from .forge/memory.jsonl.';

/**
 * The run's report as its end would have given it, when the history ends with a loop-control call that has its
 * (non-error) result; undefined otherwise (the run was really cut off).
 */
export function endedRunReport(
  history: readonly ChatMessage[],
  taskId: string,
  progress: EndedRunProgress | undefined,
): RunReport | undefined {
  let i = history.length - 1;
  while (i >= 0 && history[i]!.role === 'tool') i--;
  const step = history[i];
  if (!step || step.role !== 'assistant' || !step.toolCalls?.length) return undefined;
  const results = history.slice(i + 1);
  for (const call of step.toolCalls) {
    const reason = LOOP_CONTROL[call.name];
    if (!reason) continue;
    const result = results.find((m) => m.role === 'tool' && m.toolCallId === call.id);
    if (!result || result.role !== 'tool' || result.isError) return undefined;
    // Every other call of that step has its result too: nothing of the step is left to run.
    if (step.toolCalls.some((c) => !results.some((m) => m.role === 'tool' && m.toolCallId === c.id))) return undefined;
    return {
      runId: `${taskId}-reloaded`,
      taskId,
      reason,
      detail: result.content,
      iterations: progress?.iteration ?? 0,
      steps: [],
      usage: { inputTokens: progress?.inputTokens ?? 0, outputTokens: progress?.outputTokens ?? 0 },
      ...(progress?.costUsd !== undefined ? { costUsd: progress.costUsd } : {}),
      elapsedMs: progress?.elapsedMs ?? 0,
    };
  }
  return undefined;
}
