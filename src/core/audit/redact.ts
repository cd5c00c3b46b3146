// Secret scrubbing for text that leaves the loop for a log: API keys, tokens, passwords, private keys. The audit
// trail logs digests of arguments, never the arguments; this guards the few human-readable fields it does keep
// (a command line, a rejection reason, an error line).

const PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // Provider keys and tokens with a recognisable prefix.
  /\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,})/g,
  /\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})/g,
  /\b(xox[abprs]-[A-Za-z0-9-]{8,})/g,
  /\b((?:AKIA|ASIA)[A-Z0-9]{16})\b/g,
  /\b(AIza[0-9A-Za-z_-]{30,})/g,
  /\b(glpat-[A-Za-z0-9_-]{16,})/g,
  /\b(npm_[A-Za-z0-9]{30,})/g,
  // JSON Web Tokens.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Authorization: Bearer x`, `--password x`, `API_KEY=x`, `"token": "x"`, `https://user:pass@host`: the value goes. */
const ASSIGNMENTS: readonly RegExp[] = [
  /\b(authorization\s*[:=]\s*(?:bearer|basic|token)?\s*)([^\s'"]+)/gi,
  /\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi,
  /((?:^|[\s;&|'"(])-{1,2}(?:password|passwd|pass|token|secret|api[-_]?key|access[-_]?key)(?:=|\s+))([^\s'"]+)/gi,
  /\b([A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?)[A-Za-z0-9_]*\s*[=:]\s*['"]?)([^\s'"]+)/gi,
  /("(?:[a-z_]*(?:key|token|secret|password)[a-z_]*)"\s*:\s*")([^"]+)/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)([^@\s/]+)(@)/gi,
];

const REDACTED = '[REDACTED]';

export function redactSecrets(text: string): string {
  let out = text;
  for (const re of PATTERNS) out = out.replace(re, REDACTED);
  for (const re of ASSIGNMENTS)
    out = out.replace(
      re,
      (_m, pre: string, _v: string, post?: string) => `${pre}${REDACTED}${typeof post === 'string' ? post : ''}`,
    );
  return out;
}
