// The loop's view of long-term memory. Implemented in core/memory (issue 4); optional for the loop.
import type { ChatMessage, Model } from '../model/types';
import type { RunReport } from '../loop/events';

export type MemoryType = 'procedural' | 'semantic' | 'episodic';

export interface MemoryItem {
  id: string;
  type: MemoryType;
  content: string;
  /** When it applies. */
  context: string;
  confidence: number;
  tags: string[];
  scope: 'workspace' | 'global';
  createdAt: string;
  lastUsedAt?: string;
  accessCount: number;
}

export interface RecallResult {
  items: MemoryItem[];
  /** Ready-to-insert prompt text (a dynamic system layer); empty when nothing relevant. */
  promptText: string;
}

export interface ReflectionInput {
  trigger: 'run_end' | 'tool_error';
  /** Optional: the run this reflection belongs to (the per-run reflection budget is keyed on it; falls back to
   *  report.runId, then to the signal). */
  runId?: string;
  report?: RunReport;
  history: readonly ChatMessage[];
  model: Model;
  signal: AbortSignal;
}

export interface MemoryPort {
  /** Called at perceive (run start) with the user's task; tokenBudget is the memory share of the prompt budget. */
  recall(task: string, tokenBudget: number): Promise<RecallResult>;
  /** Called after a run ends and right after a tool error; returns what was stored (may be empty). */
  reflect(input: ReflectionInput): Promise<MemoryItem[]>;
}
