// What one hook's run means for its event, on the Claude Code contract: exit 2 blocks with stderr as the reason;
// JSON on stdout (on any exit code) decides, adds context or stops the run; other codes, a timeout or a missing
// command do not block, and are reported to the user, never silent.
import { emptyVerdict, type HookCommand, type HookEventName, type HookRun, type HookVerdict } from './types';

/** Context one hook may add to the prompt (Claude Code spills more than this to a file). */
const CONTEXT_CAP = 10_000;
/** A reason or a notice, in characters. */
const LINE_CAP = 2_000;

/** Events whose action a hook can block (exit 2 or decision "block"). */
const BLOCKABLE: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
]);

function cap(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max)}… [${t.length - max} more characters dropped]` : t;
}

function label(hook: HookCommand): string {
  const cmd = hook.command.length > 80 ? `${hook.command.slice(0, 77)}...` : hook.command;
  return `${hook.event} hook "${cmd}" (${hook.source})`;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}

function parseJson(stdout: string): Record<string, unknown> | undefined {
  const t = stdout.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const PERMISSION_ALIASES: Record<string, HookVerdict['permission']> = {
  allow: 'allow',
  approve: 'allow',
  deny: 'deny',
  block: 'deny',
  ask: 'ask',
};

/** One hook's part of the verdict. */
export function interpretHookRun(hook: HookCommand, run: HookRun): HookVerdict {
  const v = emptyVerdict();
  const who = label(hook);
  if (run.failed) {
    v.notices.push(`${who} did not run: ${cap(run.failed, LINE_CAP)}`);
    return v;
  }
  if (run.timedOut) {
    v.notices.push(`${who} timed out after ${Math.round(hook.timeoutMs / 1000)} s and was stopped; the action went on`);
    return v;
  }
  if (run.truncated) v.notices.push(`${who} printed more than Forge keeps; the rest of its output was dropped`);
  const event = hook.event;
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    const reason = cap(stderr || `blocked by ${who} (exit code 2, no reason on stderr)`, LINE_CAP);
    if (BLOCKABLE.has(event)) v.block = reason;
    else if (event === 'PostToolUse') v.context.push(`PostToolUse hook: ${reason}`);
    else v.notices.push(`${who}: ${reason}`);
    return v;
  }
  const json = parseJson(run.stdout);
  if (json) applyJson(v, event, json);
  else if (run.stdout.trim().startsWith('{'))
    v.notices.push(`${who} printed output that starts like JSON but is not valid JSON; it was ignored`);
  else if (run.exitCode === 0 && (event === 'SessionStart' || event === 'UserPromptSubmit') && run.stdout.trim())
    v.context.push(cap(run.stdout, CONTEXT_CAP));
  if (run.exitCode !== 0 && run.exitCode !== null && !json) {
    const first = stderr.split('\n')[0] ?? '';
    // An http, prompt or MCP hook has no exit code: its stderr line says what went wrong.
    const how = hook.type && hook.type !== 'command' ? 'failed' : `failed with exit code ${run.exitCode}`;
    v.notices.push(`${who} ${how}${first ? `: ${cap(first, LINE_CAP)}` : ''}; the action went on`);
  }
  if (run.exitCode === null && !json) v.notices.push(`${who} was killed before it finished; the action went on`);
  return v;
}

function applyJson(v: HookVerdict, event: HookEventName, json: Record<string, unknown>): void {
  if (json.continue === false) v.stop = cap(str(json.stopReason) ?? 'a hook stopped the run', LINE_CAP);
  const system = str(json.systemMessage);
  if (system) v.notices.push(cap(system, LINE_CAP));
  const specific =
    typeof json.hookSpecificOutput === 'object' && json.hookSpecificOutput !== null
      ? (json.hookSpecificOutput as Record<string, unknown>)
      : {};
  const extra = str(specific.additionalContext);
  if (extra) v.context.push(cap(extra, CONTEXT_CAP));
  // VS Code documents Stop's decision inside hookSpecificOutput; Claude Code at the top level.
  const decision = str(json.decision) ?? str(specific.decision);
  const reason = str(json.reason) ?? str(specific.reason);
  if (event === 'PreToolUse') {
    const raw = str(specific.permissionDecision) ?? decision;
    const permission = raw ? PERMISSION_ALIASES[raw] : undefined;
    const why = str(specific.permissionDecisionReason) ?? reason;
    if (permission) {
      v.permission = permission;
      if (why) v.permissionReason = cap(why, LINE_CAP);
      if (permission === 'deny') v.block = cap(why ?? 'a PreToolUse hook denied the call', LINE_CAP);
    }
    return;
  }
  if (decision !== 'block') return;
  const because = cap(reason ?? `a ${event} hook blocked it`, LINE_CAP);
  if (event === 'PostToolUse') v.context.push(`PostToolUse hook: ${because}`);
  else if (BLOCKABLE.has(event)) v.block = because;
}

const RANK = { deny: 3, ask: 2, allow: 1 } as const;

/** The verdicts of an event's hooks, together: any block blocks; deny > ask > allow; everything else adds up. */
export function mergeVerdicts(parts: readonly HookVerdict[]): HookVerdict {
  const out = emptyVerdict();
  const blocks: string[] = [];
  for (const p of parts) {
    if (p.block) blocks.push(p.block);
    if (p.permission && (!out.permission || RANK[p.permission] > RANK[out.permission])) {
      out.permission = p.permission;
      if (p.permissionReason) out.permissionReason = p.permissionReason;
      else delete out.permissionReason;
    }
    if (p.stop && !out.stop) out.stop = p.stop;
    out.context.push(...p.context);
    out.notices.push(...p.notices);
  }
  if (blocks.length) out.block = blocks.join('\n');
  return out;
}
