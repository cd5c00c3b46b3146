// Every simple command of a command line, as the command checker judges them: the parser's parts, plus the
// commands inside `sh -c` strings, eval, wrappers (nice, env, xargs ...) and find -exec, as parts of their own.
import { parseScript, type CommandPart } from './command-parse';
import type { Word } from './command-options';
import { unwrap } from './command-wrappers';

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'ash', 'busybox']);
const MAX_DEPTH = 4;

/** Every simple command in the line, including those inside substitutions, `sh -c` strings and wrappers. */
export function extractParts(src: string, depth: number): CommandPart[] {
  const parts = parseScript(src);
  const nested: string[] = [];
  for (let i = 0; i < parts.length && i < 1000; i++) {
    const p = parts[i]!;
    if (p.kind !== 'call') continue;
    const words = wordsOf(p);
    const base = p.words[0] === undefined ? undefined : basename(p.words[0]);
    const shellScript = base && SHELLS.has(base) ? shellCommand(p) : undefined;
    if (shellScript) {
      if (shellScript.script !== undefined) nested.push(shellScript.script);
      continue;
    }
    if (base === 'eval' && p.words.length > 1 && p.words.every((a) => a !== undefined)) {
      nested.push(p.words.slice(1).join(' '));
      continue;
    }
    const u = unwrap(words);
    if (u) {
      for (const s of u.scripts) if (s !== undefined) nested.push(s);
      if (u.inner && u.inner.words.length + u.inner.assigns.length > 0) {
        parts.push(innerPart(p, words, u.inner.words, u.inner.assigns, base!, u.inner.runtimeArgs));
      }
    }
    if (base === 'find') {
      for (let k = 1; k < p.words.length; k++) {
        if (p.words[k] && /^-(exec|execdir|ok|okdir)$/.test(p.words[k]!)) {
          let end = p.words.findIndex((a, n) => n > k && (a === ';' || a === '+'));
          if (end < 0) end = p.words.length;
          parts.push(
            innerPart(
              p,
              words,
              words.slice(k + 1, end).filter((x) => x.value !== '{}'),
              [],
              'find',
              true,
            ),
          );
          k = end;
        }
      }
    }
  }
  for (const s of nested) {
    if (depth < MAX_DEPTH) parts.push(...extractParts(s, depth + 1));
    else
      parts.push({
        text: s,
        words: [undefined],
        globs: [],
        assigns: [],
        writes: [],
        reads: [],
        params: [],
        pipedInto: false,
        kind: 'call',
      });
  }
  return parts;
}

/**
 * The command a wrapper runs, as a part of its own. It reads the wrapper's stdin (`curl … | env bash`) unless the
 * wrapper turns its input into arguments (xargs) or has none to give (find -exec); its words keep what feeds them.
 */
function innerPart(
  p: CommandPart,
  outer: Word[],
  words: Word[],
  assigns: { name: string; value?: string }[],
  via: string,
  runtimeArgs: boolean,
): CommandPart {
  const from = p.wordFrom && words.map((w) => p.wordFrom![outer.indexOf(w)] ?? []);
  return {
    text: words.map((w) => w.value ?? '$?').join(' ') || p.text,
    words: words.map((w) => w.value),
    globs: words.map((w) => w.glob),
    assigns,
    writes: [],
    reads: [],
    params: p.params,
    pipedInto: !runtimeArgs && p.pipedInto,
    kind: 'call',
    via,
    runtimeArgs,
    ...(!runtimeArgs && p.stdinFrom ? { stdinFrom: p.stdinFrom } : {}),
    ...(from?.some((f) => f.length) ? { wordFrom: from } : {}),
  };
}

export const wordsOf = (p: CommandPart): Word[] => p.words.map((value, i) => ({ value, glob: p.globs[i] }));

export function basename(word: string): string {
  return word
    .replace(/\\/g, '/')
    .split('/')
    .pop()!
    .replace(/\.exe$/i, '');
}

/** `sh -c 'script'`: the script (undefined when known only at run time) and whether the shell's flags are plain. */
export function shellCommand(p: CommandPart): { script: string | undefined; plain: boolean } | undefined {
  const args = p.words.slice(1);
  const i = args.findIndex((a) => a !== undefined && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
  if (i < 0) return undefined;
  const flags = args.slice(0, i + 1);
  const plain = flags.every((f) => f !== undefined && (/^-[ceuxvfC]+$/.test(f) || f === '-o' || f === 'pipefail'));
  return { script: args[i + 1], plain };
}
