// Long-term memory: a JSONL store per workspace (+ global), BM25 recall, model reflection.
import * as path from 'node:path';
import { ConfinedReader } from '../safety/confined-read';
import type { WorkspaceFs } from '../workspace/types';
import { ForgeMemory } from './forge-memory';
import type { MemoryFileIO } from './file-io';
import { Reflector, type ReflectorOptions } from './reflector';
import { MemoryStore, type MemoryStoreOptions } from './store';

export type { MemoryItem, MemoryPort, MemoryType, RecallResult, ReflectionInput } from './port';
export type { FileStamp, MemoryFileIO } from './file-io';
export { InMemoryFileIO } from './file-io';
export { MemoryStore, formatItem, type CorruptLine, type MemoryStoreOptions, type NewMemory } from './store';
export { rankMemories, DEFAULT_RANK_WEIGHTS, type RankOptions, type RankWeights, type ScoredMemory } from './rank';
export { fillRecall, formatMemoryLine, RECALL_HEADER } from './recall';
export { Reflector, extractJsonArray, type ReflectorInput, type ReflectorOptions } from './reflector';
export { REFLECTION_SYSTEM_PROMPT, buildReflectionPrompt } from './reflection-prompt';
export { learningDraftSchema, type LearningDraft } from './schema';
export { ForgeMemory, type ForgeMemoryOptions } from './forge-memory';
export { memoryBudget, BUDGET_SHARES, type PromptBudget } from './budget';
export { estimateTokens, lexicalSimilarity, tokenize } from './text';

/** Where a workspace's memory lives, relative to the workspace folder. Meant to be committed. */
export const WORKSPACE_MEMORY_FILE = path.join('.forge', 'memory.jsonl');
/** A workspace memory file larger than this is not opened (it is read whole). */
const WORKSPACE_MEMORY_MAX_BYTES = 32 * 1024 * 1024;

interface OpenForgeMemoryOptions {
  workspaceRoot: string;
  /**
   * The workspace folder as a WorkspaceFs: the workspace store is opened only when it passes the read_file rule
   * (core/safety/confined-read.ts: no link out of the workspace, not a FIFO...), else opening rejects with why.
   * Required, so no host can open the store unchecked.
   */
  workspaceFs: WorkspaceFs;
  /** Absolute path of the global store (e.g. in the extension's globalStorageUri); omit for none. */
  globalFile?: string;
  reflection: Omit<ReflectorOptions, 'log'>;
  /** The stores' disk access: src/node/memory-file-io.ts in the extension and the CLI. */
  io: MemoryFileIO;
  log?: (message: string) => void;
  store?: Omit<MemoryStoreOptions, 'log'>;
}

/** One-call wiring for the host: opens both stores and builds the reflector. */
export async function openForgeMemory(opts: OpenForgeMemoryOptions): Promise<ForgeMemory> {
  const { io } = opts;
  const storeOpts = { ...opts.store, log: opts.log };
  const file = path.join(opts.workspaceRoot, WORKSPACE_MEMORY_FILE);
  // Recalled into every prompt and appended to: a link to ~/.ssh/id_rsa or ~/.bashrc, or a FIFO, is refused.
  const refusal = await new ConfinedReader(opts.workspaceFs).check(file, { maxBytes: WORKSPACE_MEMORY_MAX_BYTES });
  if (refusal) throw new Error(refusal.message);
  const workspace = await MemoryStore.open(io, file, 'workspace', storeOpts);
  const global = opts.globalFile ? await MemoryStore.open(io, opts.globalFile, 'global', storeOpts) : undefined;
  const reflector = new Reflector({ ...opts.reflection, log: opts.log });
  return new ForgeMemory({ workspace, global, reflector, log: opts.log, now: opts.store?.now });
}
