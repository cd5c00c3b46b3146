// The user's allow and deny rules ("git push --force*"): word patterns matched against each simple command.
import type { CommandPart } from './command-parse';
import { basename } from './command-parts';

export type CompiledRule = { source: string; words: RegExp[] };

export function compileRule(rule: string): CompiledRule {
  const words = rule
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(
      (w) =>
        new RegExp(
          '^' +
            w
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '.*')
              .replace(/\?/g, '.') +
            '$',
        ),
    );
  return { source: rule, words };
}

/** Deny rules also see `git --no-pager -C x push -f` as `git push -f`. */
function ruleWords(p: CommandPart, forDeny: boolean): (string | undefined)[][] {
  const out = [p.words];
  const base = p.words[0] === undefined ? undefined : basename(p.words[0]);
  if (forDeny && (base === 'git' || base === 'npm') && p.words[1]?.startsWith('-')) {
    let i = 1;
    while (i < p.words.length && p.words[i]?.startsWith('-')) i += p.words[i] === '-C' || p.words[i] === '-c' ? 2 : 1;
    out.push([p.words[0], ...p.words.slice(i)]);
  }
  return out;
}

export function matchRule(rules: CompiledRule[], p: CommandPart, forDeny: boolean): string | undefined {
  for (const words of ruleWords(p, forDeny)) {
    for (const r of rules) {
      if (r.words.length === 0 || r.words.length > words.length) continue;
      const ok = r.words.every((re, i) => {
        const w = words[i];
        if (w === undefined) return false;
        // Deny rules also match a command invoked by path (/bin/rm); allow rules need the exact word.
        return re.test(w) || (forDeny && i === 0 && re.test(basename(w)));
      });
      if (ok) return forDeny ? `\`${p.text}\` matches the deny rule "${r.source}".` : r.source;
    }
  }
  return undefined;
}
