// The audit trail: an append-only record of every action a task took, one JSON object per line. It subscribes to
// the loop's typed events (tool calls, decisions, results, model calls, plan changes, runs) and takes a few host
// facts the loop does not see (files written with hashes, checkpoint restores and undos). Arguments and file
// contents are never logged, only their sha256; the few readable fields (a command line, a rejection reason, an
// error line) are scrubbed of secrets. Where the lines go is the sink's business (src/node: rotated files).
import { createHash } from 'node:crypto';
import type { AgentEvent } from '../loop/events';
import { redactSecrets } from './redact';
import { errorText } from '../error-text';

/** Where audit lines go. append() gets whole lines (each ends in '\n') and must keep them whole and in order. */
export interface AuditSink {
  append(lines: string): Promise<void>;
}

/** One line of the log. `v` is the format version; `ts` ms epoch; everything else depends on `kind`. */
interface AuditRecord {
  v: 1;
  ts: number;
  kind: string;
  taskId?: string;
  runId?: string;
  [field: string]: unknown;
}

interface FileWriteFact {
  taskId: string;
  path: string;
  /** null: the file did not exist before / was deleted. */
  before: string | null;
  after: string | null;
  toolCallId?: string;
}

interface RestoreFact {
  taskId: string;
  /** restore: back to a checkpoint; undo: the whole task's changes; redo: the last restore or undo taken back. */
  action: 'restore' | 'undo' | 'redo';
  checkpoint?: number;
  restored: string[];
  deleted: string[];
  conflicts: { path: string; reason: string }[];
  /** Files the user chose to keep (their own changes) instead of overwriting. */
  skipped?: string[];
  overwritten?: string[];
  /** Messages dropped from the conversation (rewind). */
  rewoundMessages?: number;
}

interface AuditTrailOptions {
  now?: () => number;
  /** Diagnostics (a failing sink must never break a run). */
  log?: (message: string) => void;
  /** The sink failed (full disk, read-only storage): lines wait in memory and are retried. */
  onWriteFailed?: (err: unknown) => void;
  /** The sink works again: every waiting line reached it. */
  onWriteRecovered?: () => void;
  /** How long after a failure the waiting lines are retried without a new event (default 10 s). */
  retryMs?: number;
  /** Characters of lines kept in memory while the sink fails (default 2 MB); past it the oldest are dropped, counted. */
  maxBacklogChars?: number;
}

const CAP = 500;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Canonical JSON (sorted keys) so equal arguments always digest the same. */
function stableJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
    .join(',')}}`;
}

export function digestArgs(args: unknown): string {
  return sha256Hex(stableJson(args));
}

function clip(text: string): string {
  const t = redactSecrets(text);
  return t.length > CAP ? `${t.slice(0, CAP)}…` : t;
}

export class AuditTrail {
  private readonly now: () => number;
  private readonly log: (m: string) => void;
  private chain: Promise<void> = Promise.resolve();
  /** Lines not yet handed to the sink (batched per microtask so a burst of events is one append). */
  private buffer: string[] = [];
  private scheduled = false;
  /** Per run: a command call's command line, so its result line can name it (nothing else is kept). */
  private readonly commands = new Map<string, string>();
  /** Lines the sink refused (oldest first), written before anything newer once it works again. */
  private backlog: string[] = [];
  private backlogChars = 0;
  /** Lines dropped because the backlog was full while the sink failed: a gap line says how many, in place. */
  private dropped = 0;
  private failing = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sink: AuditSink,
    private readonly opts: AuditTrailOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => undefined);
  }

  /** The loop's events for one task (the host passes the session's task id). */
  onEvent(taskId: string, e: AgentEvent): void {
    this.record(taskId, e);
  }

  /**
   * One event as lines. A sub-agent's events (delegate_task) are recorded like the run's own, each line naming the
   * parent's call (`parentCallId`); its model spend is in the parent's `model_call` line of source sub_agents, so
   * its own model calls carry `nested: true` and are not added to the task's totals.
   */
  private record(taskId: string, e: AgentEvent, parentCallId?: string): void {
    const runId = 'runId' in e && e.runId ? e.runId : undefined;
    const base = { taskId, ...(runId ? { runId } : {}), ...(parentCallId ? { parentCallId } : {}) };
    switch (e.type) {
      case 'sub_agent':
        if (!parentCallId) this.record(taskId, e.event, e.parentCallId); // one level: sub-agents do not delegate
        break;
      case 'run_start':
        if (parentCallId) {
          this.write({ ...base, kind: 'sub_agent_start', mode: e.mode, maxIterations: e.maxIterations });
          break;
        }
        this.commands.clear();
        this.write({ ...base, kind: 'run_start', mode: e.mode, maxIterations: e.maxIterations });
        break;
      case 'tool_call_end':
        if (e.name === 'execute_command') {
          const command = (e.args as { command?: unknown } | undefined)?.command;
          if (typeof command === 'string') this.commands.set(e.id, command);
        }
        this.write({
          ...base,
          kind: 'tool_call',
          toolCallId: e.id,
          tool: e.name,
          argsSha256: digestArgs(e.args),
          argsChars: stableJson(e.args).length,
        });
        break;
      case 'tool_decision':
        this.write({
          ...base,
          kind: 'decision',
          toolCallId: e.toolCallId,
          tool: e.toolName,
          outcome: e.outcome,
          by: e.by,
          ...(e.scope ? { scope: e.scope } : {}),
          ...(e.reason ? { reason: clip(e.reason) } : {}),
        });
        break;
      case 'tool_result': {
        const rec: Omit<AuditRecord, 'v' | 'ts'> = {
          ...base,
          kind: 'tool_result',
          toolCallId: e.id,
          tool: e.name,
          isError: e.isError,
          latencyMs: e.latencyMs,
          resultChars: e.content.length,
          resultSha256: sha256Hex(e.content),
          ...(e.errorClass ? { errorClass: e.errorClass } : {}),
        };
        if (e.isError) rec.error = clip(e.content.split('\n')[0] ?? '');
        this.write(rec);
        const command = this.commandOf(e);
        if (command) this.write({ ...base, kind: 'command', toolCallId: e.id, ...command });
        break;
      }
      case 'step_end': {
        const s = e.step;
        this.write({
          ...base,
          kind: 'model_call',
          ...(parentCallId ? { nested: true } : {}),
          iteration: s.iteration,
          latencyMs: s.latencyMs,
          ...(s.usage ? { usage: s.usage } : {}),
          ...(s.costUsd !== undefined ? { costUsd: s.costUsd } : {}),
          ...(s.usageEstimated ? { usageEstimated: true } : {}),
          ...(s.model ? { model: s.model } : {}),
          ...(s.finishReason ? { finishReason: s.finishReason } : {}),
          ...(s.error ? { error: clip(s.error) } : {}),
          toolCalls: s.toolCalls.length,
        });
        break;
      }
      case 'model_usage':
        this.write({
          ...base,
          kind: 'model_call',
          source: e.source,
          usage: e.usage,
          ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
          calls: e.calls,
        });
        break;
      case 'compaction':
        this.write({ ...base, kind: 'compaction', beforeTokens: e.beforeTokens, afterTokens: e.afterTokens });
        break;
      case 'plan_updated':
        this.write({
          ...base,
          kind: 'plan',
          by: e.plan.updatedBy,
          steps: e.plan.steps.length,
          done: e.plan.steps.filter((s) => s.status === 'done').length,
          currentStep: e.plan.currentStep,
          planSha256: digestArgs(e.plan.steps),
        });
        break;
      case 'warning':
        if (e.kind === 'fallback' || e.kind === 'stagnation' || e.kind === 'budget')
          this.write({ ...base, kind: 'warning', warning: e.kind, message: clip(e.message) });
        break;
      case 'run_end': {
        const r = e.report;
        if (parentCallId) {
          this.write({
            ...base,
            kind: 'sub_agent_end',
            reason: r.reason,
            iterations: r.iterations,
            elapsedMs: r.elapsedMs,
          });
          break;
        }
        this.write({
          ...base,
          kind: 'run_end',
          reason: r.reason,
          iterations: r.iterations,
          usage: r.usage,
          ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
          elapsedMs: r.elapsedMs,
          ...(r.totals ?? {}),
          ...(r.fallback ? { fallback: r.fallback.to } : {}),
        });
        this.commands.clear();
        break;
      }
      default:
        break;
    }
  }

  /** A file an accepted edit wrote (the edit journal's record), with the hashes of its contents before and after. */
  fileWritten(f: FileWriteFact): void {
    this.write({
      taskId: f.taskId,
      kind: 'file_write',
      path: f.path,
      beforeSha256: f.before === null ? null : sha256Hex(f.before),
      afterSha256: f.after === null ? null : sha256Hex(f.after),
      ...(f.toolCallId ? { toolCallId: f.toolCallId } : {}),
    });
  }

  /** A checkpoint restore or an undo (files only; rewinding the conversation is noted with it). */
  restored(f: RestoreFact): void {
    this.write({
      taskId: f.taskId,
      kind: f.action,
      ...(f.checkpoint !== undefined ? { checkpoint: f.checkpoint } : {}),
      restored: f.restored,
      deleted: f.deleted,
      conflicts: f.conflicts,
      ...(f.skipped?.length ? { skipped: f.skipped } : {}),
      ...(f.overwritten?.length ? { overwritten: f.overwritten } : {}),
      ...(f.rewoundMessages !== undefined ? { rewoundMessages: f.rewoundMessages } : {}),
      by: 'user',
    });
  }

  /** Any other host fact (kept generic so new actions need no change here). Values are not scrubbed: pass no secrets. */
  note(kind: string, fields: Record<string, unknown> & { taskId?: string }): void {
    this.write({ ...fields, kind });
  }

  /** Stops retrying (deactivate). */
  dispose(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Resolves when every line so far reached the sink (or, while it fails, was tried). */
  async flush(): Promise<void> {
    this.drain();
    await this.chain;
  }

  private commandOf(e: Extract<AgentEvent, { type: 'tool_result' }>): Record<string, unknown> | undefined {
    if (e.name !== 'execute_command') return undefined;
    const command = this.commands.get(e.id);
    this.commands.delete(e.id);
    const data = (e.data ?? {}) as {
      exitCode?: unknown;
      contained?: unknown;
      timedOut?: unknown;
      aborted?: unknown;
      blocked?: unknown;
      sandboxFailed?: unknown;
    };
    const ran = typeof data.exitCode === 'number' || data.exitCode === null;
    return {
      ...(typeof command === 'string' ? { command: clip(command), commandSha256: sha256Hex(command) } : {}),
      ran,
      exitCode: typeof data.exitCode === 'number' ? data.exitCode : null,
      contained: data.contained === true,
      ...(data.timedOut ? { timedOut: true } : {}),
      ...(data.aborted ? { aborted: true } : {}),
      ...(Array.isArray(data.blocked) && data.blocked.length
        ? { blocked: data.blocked.slice(0, 20).map((b) => clip(String(b))) }
        : {}),
      ...(data.sandboxFailed ? { sandboxFailed: true } : {}),
    };
  }

  private write(fields: Omit<AuditRecord, 'v' | 'ts'>): void {
    let line: string;
    try {
      line = JSON.stringify({ v: 1, ts: this.now(), ...fields });
    } catch (err) {
      this.log(`[audit] cannot serialise a ${String(fields.kind)} record: ${errorText(err)}`);
      return;
    }
    this.buffer.push(`${line}\n`);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    if (!this.buffer.length && !this.backlog.length) return;
    const fresh = this.buffer;
    this.buffer = [];
    this.chain = this.chain.then(() => this.send(fresh));
  }

  /** Appends what waits (a gap line first if some was dropped), then `fresh`; on failure keeps it all for a retry. */
  private async send(fresh: string[]): Promise<void> {
    const lines = [...this.backlog, ...fresh];
    if (!lines.length) return;
    const gap = this.dropped
      ? [
          `${JSON.stringify({ v: 1, ts: this.now(), kind: 'audit_gap', dropped: this.dropped, reason: 'the audit log could not be written and too many lines waited' })}\n`,
        ]
      : [];
    try {
      await this.sink.append([...gap, ...lines].join(''));
    } catch (err) {
      this.keep(fresh);
      if (!this.failing) {
        this.failing = true;
        this.log(`[audit] could not append to the audit log (lines wait in memory): ${errorText(err)}`);
        this.opts.onWriteFailed?.(err);
      }
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.drain();
      }, this.opts.retryMs ?? 10_000);
      return;
    }
    this.backlog = [];
    this.backlogChars = 0;
    this.dropped = 0;
    if (this.failing) {
      this.failing = false;
      this.log('[audit] the audit log can be written again; every waiting line is in it');
      this.opts.onWriteRecovered?.();
    }
  }

  private keep(fresh: string[]): void {
    const max = this.opts.maxBacklogChars ?? 2_000_000;
    for (const line of fresh) {
      this.backlog.push(line);
      this.backlogChars += line.length;
    }
    while (this.backlogChars > max && this.backlog.length) {
      this.backlogChars -= this.backlog.shift()!.length;
      this.dropped++;
    }
  }
}
