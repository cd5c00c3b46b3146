// The environment a command gets: an allow list of harmless variables from the host, never API keys or tokens,
// plus the variables that keep commands non-interactive.

/** Host variables passed through by default. */
const DEFAULT_ENV_ALLOW: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'COLORTERM',
  'TZ',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
];

/** Names that look like credentials are never passed, even when a user's allow list names them. */
const CREDENTIAL_NAME = /(KEY|TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|CREDENTIAL|COOKIE|SESSION|AUTH|PRIVATE)/i;

const FIXED: Record<string, string> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: '',
  SSH_ASKPASS: '',
};

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of patterns) {
    const t = p.trim();
    if (!t) continue;
    if (t.endsWith('*')) prefixes.push(t.slice(0, -1).toUpperCase());
    else exact.add(t.toUpperCase());
  }
  return (name) => exact.has(name.toUpperCase()) || prefixes.some((p) => name.toUpperCase().startsWith(p));
}

interface ScrubbedEnv {
  env: Record<string, string>;
  /** Names from the user's allow list that were refused because they look like credentials. */
  refused: string[];
}

/**
 * Keeps only allow-listed variables (defaults + `extraAllow`, `*` suffix = prefix), drops anything that looks
 * like a credential, and adds the fixed non-interactive variables and `overrides` (TMPDIR...).
 */
export function scrubEnv(
  source: NodeJS.ProcessEnv,
  extraAllow: readonly string[] = [],
  overrides: Record<string, string> = {},
): ScrubbedEnv {
  const allowed = matcher([...DEFAULT_ENV_ALLOW, ...extraAllow]);
  const refused = new Set<string>();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !allowed(name)) continue;
    if (CREDENTIAL_NAME.test(name)) {
      refused.add(name);
      continue;
    }
    env[name] = value;
  }
  for (const name of extraAllow) if (CREDENTIAL_NAME.test(name.replace(/\*$/, ''))) refused.add(name);
  return { env: { ...env, ...FIXED, ...overrides }, refused: [...refused] };
}
