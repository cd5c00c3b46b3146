// The perceive phase of a sent message, before the first model call: the memories recalled for it and the mode's
// own context (within a share of the window), and the dynamic tools (MCP) loaded for every run. A failure is a
// warning: the run goes on without it.
import { estimateTextTokens } from '../context/tokens';
import { errorText } from '../error-text';
import { memoryBudget } from '../memory/budget';
import { raceAbort, isAbort } from './abort';
import type { RunDeadline } from './deadline';
import type { AgentEvent } from './events';
import type { RunDeps } from './run-deps';
import type { AgentState } from './state';

/** What the perceive steps read and write of their run. */
export interface PerceiveScope {
  readonly state: AgentState;
  readonly deps: RunDeps;
  readonly runId: string;
  readonly userMessage: string;
  /** The run's deadline: its signal, and what the run was doing when it expired. */
  readonly deadline: RunDeadline;
  readonly contextWindow: number;
  emit(event: AgentEvent): void;
  /** A warning of kind 'other' in the run's transcript. */
  warn(message: string): void;
}

/** The perceive-time context (memories / mode context / environment): a tenth of the window, at most 8k tokens. */
function perceiveBudgetOf(window: number): number {
  return Math.min(Math.floor(window * 0.1), 8000);
}

/** Memories recalled for the message, into the prompt (a failure is a warning). */
export async function recallMemory(run: PerceiveScope): Promise<void> {
  const memory = run.deps.memory;
  if (!memory) return;
  const window = run.contextWindow;
  // The perceive-time context (memories / conversation / environment) gets a tenth of the window, at most 8k
  // tokens, split 60 / 30 / 10; memories take their 60%.
  const perceiveBudget = perceiveBudgetOf(window);
  const budget = run.deps.config.memoryTokenBudget ?? memoryBudget(perceiveBudget, 0).memory;
  try {
    const recalled = await run.deadline.during('memory', 'recalling memories', () =>
      raceAbort(memory.recall(run.userMessage, budget), run.deadline.signal),
    );
    run.state.memoryText = recalled.promptText;
    if (recalled.items.length) {
      run.emit({
        type: 'memory_recalled',
        runId: run.runId,
        memories: recalled.items.map((m) => ({ id: m.id, content: m.content, type: m.type })),
      });
    }
  } catch (err) {
    if (isAbort(err, run.deadline.signal)) throw err;
    run.warn(`Memory recall failed: ${errorText(err)}`);
  }
}

/**
 * The mode's own context (plan: manifests and structure, review: the diff, test: test files and the last run),
 * gathered once per user message within the perceive budget's 30% "conversation" share.
 */
export async function gatherModeContext(run: PerceiveScope): Promise<void> {
  run.state.modeContextText = undefined;
  const gather = run.deps.config.modeContext;
  if (!gather) return;
  const budget = Math.floor(perceiveBudgetOf(run.contextWindow) * 0.3);
  const mode = run.state.mode;
  try {
    const got = await run.deadline.during('perceive', `gathering ${mode} context`, () =>
      raceAbort(gather(mode, budget, run.deadline.signal), run.deadline.signal),
    );
    if (!got || !got.text.trim()) return;
    run.state.modeContextText = got.text;
    run.emit({
      type: 'mode_context',
      runId: run.runId,
      mode,
      sources: got.sources,
      tokens: estimateTextTokens(got.text),
    });
  } catch (err) {
    if (isAbort(err, run.deadline.signal)) throw err;
    run.warn(`Could not gather the ${mode} context: ${errorText(err)}`);
  }
}

/** Loads the dynamic tools (MCP servers start here, lazily) into the registry; a failing source keeps its old tools. */
export async function loadToolSources(run: PerceiveScope): Promise<void> {
  const sources = run.deps.toolSources ?? [];
  if (!sources.length) return;
  await run.deadline.during('tool-sources', 'loading MCP tools', () =>
    raceAbort(
      Promise.all(
        sources.map(async (source) => {
          try {
            const skipped = run.deps.registry.setSourceTools(source.id, await source.load(run.deadline.signal));
            for (const t of skipped)
              run.deps.log(`tool source ${source.id}: ${t.name} clashes with a tool already registered; skipped`);
          } catch (err) {
            if (isAbort(err, run.deadline.signal)) throw err;
            run.warn(`Could not load tools from ${source.id}: ${errorText(err)}`);
          }
        }),
      ),
      run.deadline.signal,
    ),
  );
}
