// Reads the "hooks" of a settings file into commands: Claude Code's nested form
// ({"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"…","timeout":10}]}]}) and VS Code's flat
// form ({"PreToolUse":[{"type":"command","command":"…"}]}, which has no matcher). What Forge cannot run is reported,
// never silently dropped.
import { handlerParts } from './handler-types';
import { HOOK_EVENTS, type HookCommand, type HookEventName, type HookScope, type HookType } from './types';

/** A command hook's time limit when it names none (Claude Code's older default; its newer one, 600 s, is the cap). */
const DEFAULT_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 600;
/** UserPromptSubmit holds up the user's message, and a prompt hook waits for a model: Claude Code's default. */
const PROMPT_TIMEOUT_S = 30;

export interface ParsedHooks {
  hooks: HookCommand[];
  /** One line each: what was skipped and why. */
  problems: string[];
}

type Platform = 'linux' | 'darwin' | 'win32' | string;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The command of a handler, or of its platform (VS Code's windows / linux / osx keys). */
function commandOf(h: Record<string, unknown>, platform: Platform): unknown {
  const key = platform === 'win32' ? 'windows' : platform === 'darwin' ? 'osx' : 'linux';
  return typeof h[key] === 'string' ? h[key] : h.command;
}

function timeoutOf(h: Record<string, unknown>, event: HookEventName, type: HookType = 'command'): number {
  const t = h.timeout ?? h.timeoutSec;
  const fallback = event === 'UserPromptSubmit' || type === 'prompt' ? PROMPT_TIMEOUT_S : DEFAULT_TIMEOUT_S;
  const s = typeof t === 'number' && Number.isFinite(t) && t > 0 ? Math.min(t, MAX_TIMEOUT_S) : fallback;
  return Math.round(s * 1000);
}

/**
 * The hooks in `settings` (the whole settings object; only its "hooks" key is read). `source` names the file for
 * people; `platform` picks VS Code's per-OS commands.
 */
export function parseHookSettings(
  settings: unknown,
  scope: HookScope,
  source: string,
  platform: Platform = 'linux',
): ParsedHooks {
  const out: ParsedHooks = { hooks: [], problems: [] };
  if (!isRecord(settings) || settings.hooks === undefined) return out;
  const root = settings.hooks;
  if (!isRecord(root)) {
    out.problems.push(`${source}: "hooks" is not an object`);
    return out;
  }
  for (const [event, groups] of Object.entries(root)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      out.problems.push(`${source}: the ${event} event is not one Forge fires; its hooks do not run`);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.problems.push(`${source}: hooks.${event} is not a list`);
      continue;
    }
    const ev = event as HookEventName;
    for (const group of groups) {
      if (!isRecord(group)) continue;
      // Nested (Claude Code): a matcher and its handlers. Flat (VS Code): the entry is the handler, for every tool.
      const nested = Array.isArray(group.hooks);
      const matcher = nested && typeof group.matcher === 'string' ? group.matcher.trim() : '';
      const handlers = nested ? (group.hooks as unknown[]) : [group];
      for (const h of handlers) {
        if (!isRecord(h)) continue;
        const parts = handlerParts(h, ev, () => commandOf(h, platform));
        if (typeof parts === 'string') {
          out.problems.push(`${source}: ${parts}`);
          continue;
        }
        out.hooks.push({ event: ev, matcher, ...parts, timeoutMs: timeoutOf(h, ev, parts.type), scope, source });
      }
    }
  }
  return out;
}

/** Identical handlers (same event, matcher and command) run once, as in Claude Code; the first source is kept. */
export function dedupeHooks(hooks: readonly HookCommand[]): HookCommand[] {
  const seen = new Set<string>();
  return hooks.filter((h) => {
    const key = `${h.event}\0${h.matcher}\0${h.command}\0${JSON.stringify([h.headers, h.input])}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The key a workspace hook's permission is kept under: the whole of what runs, so any change asks again. */
export function hookPermissionKey(
  h: Pick<HookCommand, 'event' | 'matcher' | 'command' | 'source' | 'type' | 'headers' | 'input'>,
): string {
  const base = [h.source, h.event, h.matcher, h.command];
  // A command hook's key stays as it always was (answers already given keep holding); other kinds add their parts.
  return JSON.stringify(h.type && h.type !== 'command' ? [...base, h.type, h.headers ?? {}, h.input ?? {}] : base);
}
