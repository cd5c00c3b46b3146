// The task store's file formats: tasks/<stem>.json = {version, task: TaskRecord}; tasks-index.json =
// {version, tasks: TaskSummary[] (+ the file size each summary was read from, to notice damage at open)}.
export const FORMAT_VERSION = 1;

export interface TaskSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  mode: string;
  status: string;
  iterations?: number;
  costUsd?: number;
  /** Tokens the task spent (input + output). */
  tokens?: number;
}

export interface TaskRecord extends TaskSummary {
  snapshot: unknown /* AgentSnapshot */;
  transcript?: unknown /* panel transcript snapshot */;
}

export function summaryOf(r: TaskSummary): TaskSummary {
  const s: TaskSummary = {
    id: r.id,
    title: r.title,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    mode: r.mode,
    status: r.status,
  };
  if (r.iterations !== undefined) s.iterations = r.iterations;
  if (r.costUsd !== undefined) s.costUsd = r.costUsd;
  if (typeof r.tokens === 'number' && Number.isFinite(r.tokens) && r.tokens >= 0) s.tokens = r.tokens;
  return s;
}

function isSummary(v: unknown): v is TaskSummary {
  const s = v as Partial<TaskSummary> | null;
  return (
    !!s &&
    typeof s === 'object' &&
    typeof s.id === 'string' &&
    s.id !== '' &&
    typeof s.title === 'string' &&
    typeof s.createdAt === 'number' &&
    typeof s.updatedAt === 'number' &&
    typeof s.mode === 'string' &&
    typeof s.status === 'string' &&
    (s.iterations === undefined || typeof s.iterations === 'number') &&
    (s.costUsd === undefined || typeof s.costUsd === 'number')
  );
}

export function parseTaskFile(text: string): TaskRecord | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; task?: unknown };
    if (doc?.version !== FORMAT_VERSION || !isSummary(doc.task) || !('snapshot' in doc.task)) return undefined;
    return doc.task as TaskRecord;
  } catch {
    return undefined;
  }
}

/** An index entry: the summary and the size of the file it was read from (a different size means damage). */
interface IndexedSummary {
  summary: TaskSummary;
  size?: number;
}

export function parseIndex(text: string): IndexedSummary[] | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; tasks?: unknown };
    if (doc?.version !== FORMAT_VERSION || !Array.isArray(doc.tasks) || !doc.tasks.every(isSummary)) return undefined;
    return (doc.tasks as (TaskSummary & { size?: unknown })[]).map((t) => ({
      summary: summaryOf(t),
      ...(typeof t.size === 'number' ? { size: t.size } : {}),
    }));
  } catch {
    return undefined;
  }
}
