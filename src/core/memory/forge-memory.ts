// The MemoryPort the loop talks to: recall at perceive, reflect after runs and tool errors.
// Both entry points are total: a broken file or a failing model is logged, never thrown into the loop.
import type { MemoryItem, MemoryPort, RecallResult, ReflectionInput } from './port';
import type { MemoryStore } from './store';
import type { Reflector } from './reflector';
import type { LearningDraft } from './schema';
import { rankMemories, type RankOptions } from './rank';
import { fillRecall } from './recall';
import { plural } from '../plural';

export interface ForgeMemoryOptions {
  workspace: MemoryStore;
  /** Cross-project lessons; learnings with scope "global" (or tag "global") go here. */
  global?: MemoryStore;
  reflector: Reflector;
  log?: (message: string) => void;
  now?: () => Date;
  rank?: Omit<RankOptions, 'now'>;
  /** Cap on recalled memories regardless of budget. Default 20. */
  maxRecallItems?: number;
  /** How many earlier episodes the reflecting model gets as context. Default 5. */
  maxEpisodes?: number;
}

export class ForgeMemory implements MemoryPort {
  private readonly log: (message: string) => void;
  private readonly now: () => Date;

  constructor(private readonly opts: ForgeMemoryOptions) {
    this.log = opts.log ?? (() => undefined);
    this.now = opts.now ?? (() => new Date());
  }

  get stores(): MemoryStore[] {
    return this.opts.global ? [this.opts.workspace, this.opts.global] : [this.opts.workspace];
  }

  /** Every memory of both stores, fresh from disk (for "Forge: Forget" and the like). */
  async list(): Promise<MemoryItem[]> {
    const lists = await Promise.all(this.stores.map((s) => s.list()));
    return lists.flat();
  }

  /** Removes a memory from whichever store holds it. */
  async forget(id: string): Promise<boolean> {
    for (const store of this.stores) if (await store.remove(id)) return true;
    return false;
  }

  async recall(task: string, tokenBudget: number): Promise<RecallResult> {
    try {
      // Episodic memories are for reflection, not for steering the next run.
      const items = (await this.list()).filter((m) => m.type !== 'episodic');
      const ranked = rankMemories(items, task, { ...this.opts.rank, now: this.now() });
      const result = fillRecall(ranked, tokenBudget, { maxItems: this.opts.maxRecallItems });
      await this.touch(result.items);
      return result;
    } catch (err) {
      this.log(`memory: recall failed, continuing without memories: ${(err as Error)?.message ?? String(err)}`);
      return { items: [], promptText: '' };
    }
  }

  async reflect(input: ReflectionInput): Promise<MemoryItem[]> {
    try {
      const all = await this.list();
      const task = [...input.history].reverse().find((m) => m.role === 'user')?.content ?? '';
      const rankOpts = { ...this.opts.rank, now: this.now() };
      const episodic = all.filter((m) => m.type === 'episodic');
      const relevantEpisodes = rankMemories(episodic, task, rankOpts).map((s) => s.item);
      const episodes = (relevantEpisodes.length ? relevantEpisodes : newestFirst(episodic)).slice(
        0,
        this.opts.maxEpisodes ?? 5,
      );
      const known = rankMemories(
        all.filter((m) => m.type !== 'episodic'),
        task,
        rankOpts,
      )
        .slice(0, 10)
        .map((s) => s.item);

      const drafts = await this.opts.reflector.reflect({ ...input, episodic: episodes, known });
      if (drafts.length === 0) return [];
      const toGlobal = drafts.filter((d) => this.opts.global && isGlobal(d)).map(stripGlobalTag);
      const toWorkspace = drafts.filter((d) => !(this.opts.global && isGlobal(d)));
      const stored = [
        ...(await this.opts.workspace.add(toWorkspace)),
        ...(this.opts.global ? await this.opts.global.add(toGlobal) : []),
      ];
      this.log(`memory: learned ${plural(stored.length, 'item')}: ${stored.map((m) => m.content).join(' | ')}`);
      return stored;
    } catch (err) {
      this.log(`memory: reflection not stored: ${(err as Error)?.message ?? String(err)}`);
      return [];
    }
  }

  private async touch(items: readonly MemoryItem[]): Promise<void> {
    for (const store of this.stores) {
      const ids = items.filter((m) => m.scope === store.scope).map((m) => m.id);
      await store.touch(ids);
    }
  }
}

function isGlobal(d: LearningDraft): boolean {
  return d.scope === 'global' || d.tags.some((t) => t.toLowerCase() === 'global');
}

function stripGlobalTag(d: LearningDraft): LearningDraft {
  return { ...d, tags: d.tags.filter((t) => t.toLowerCase() !== 'global') };
}

function newestFirst(items: MemoryItem[]): MemoryItem[] {
  return [...items].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
