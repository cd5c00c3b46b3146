// An `http` hook: the event's JSON POSTed to an http(s) URL; a 2xx body is read as a command's stdout (JSON
// decides), any other status is a non-blocking failure. The server is untrusted: no redirects are followed, the
// body is capped, the time limit ends the request. Nothing secret leaves: the body goes through the same
// redaction as the audit log, and only a user's own hook may put environment variables (those it names in
// allowedEnvVars) into its headers.
import { redactSecrets } from '../../core/audit/redact';
import { hookFailed, hookRun, type HookCommand, type HookRun } from '../../core/hooks/types';

export const HTTP_HOOK_BODY_CAP = 64 * 1024;

/** `$NAME` and `${NAME}` in a header, for the names the user's hook allows; others become empty. */
function expandHeader(value: string, allowed: readonly string[], env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string) => {
    const name = (a ?? b)!;
    return allowed.includes(name) ? (env[name] ?? '') : '';
  });
}

/** The headers sent: the hook's own, with env vars only for a user's hook. */
export function httpHookHeaders(hook: HookCommand, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const allowed = hook.scope === 'user' ? (hook.allowedEnvVars ?? []) : [];
  for (const [k, v] of Object.entries(hook.headers ?? {})) out[k] = expandHeader(v, allowed, env);
  out['content-type'] = 'application/json';
  return out;
}

/** The event with every string value redacted (redacting the JSON text itself could break its quoting). */
export function redactedEvent(eventJson: string): string {
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? redactSecrets(v)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  try {
    return JSON.stringify(walk(JSON.parse(eventJson)));
  } catch {
    return redactSecrets(eventJson);
  }
}

async function readCapped(res: Response, cap: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > cap) {
      await reader.cancel().catch(() => undefined);
      return { text: text.slice(0, cap), truncated: true };
    }
  }
  return { text: text + decoder.decode(), truncated: false };
}

export async function runHttpHook(
  hook: HookCommand,
  eventJson: string,
  signal: AbortSignal,
  cap = HTTP_HOOK_BODY_CAP,
): Promise<HookRun> {
  const started = Date.now();
  const timeout = AbortSignal.timeout(hook.timeoutMs);
  const url = hook.url ?? '';
  if (!/^https?:\/\//i.test(url)) return hookFailed(started, 'its url is not http or https');
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: httpHookHeaders(hook),
      body: redactedEvent(eventJson),
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
    const body = await readCapped(res, cap);
    if (res.status >= 200 && res.status < 300)
      return hookRun(started, { stdout: body.text, truncated: body.truncated });
    const why =
      res.status >= 300 && res.status < 400 ? 'redirects are not followed' : body.text.split('\n')[0]?.slice(0, 200);
    return hookRun(started, { exitCode: 1, stderr: `HTTP ${res.status}${why ? `: ${why}` : ''}` });
  } catch (err) {
    signal.throwIfAborted();
    if (timeout.aborted) return hookRun(started, { exitCode: null, timedOut: true });
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return hookFailed(started, `the request failed (${cause?.code ?? cause?.message ?? String(err)})`);
  }
}
