// Option syntax of the programs on the allow list: a compact table per form ("-a --all -n= --color[=]")
// and a GNU-style parse of a command's words against it, noting unknown options and hazards.

/** A word of a command: its literal value (undefined: known only at run time) and its glob pattern, if any. */
export interface Word {
  value: string | undefined;
  glob: string | undefined;
}

type OptKind = 'flag' | 'value' | 'optional';
export interface OptTable {
  kinds: Map<string, OptKind>;
  numeric: boolean;
  lower: boolean;
}

/** Compile "-a --all -n= --color[=] -#" : `=` takes a value (attached or next word), `[=]` an optional attached value, `-#` numeric options (-5). */
export function opts(spec: string, lower = false): OptTable {
  const kinds = new Map<string, OptKind>();
  let numeric = false;
  for (const o of spec.split(/\s+/).filter(Boolean)) {
    if (o === '-#') numeric = true;
    else if (o.endsWith('[=]')) kinds.set(norm(o.slice(0, -3), lower), 'optional');
    else if (o.endsWith('=')) kinds.set(norm(o.slice(0, -1), lower), 'value');
    else kinds.set(norm(o, lower), 'flag');
  }
  return { kinds, numeric, lower };
}
const norm = (o: string, lower: boolean) => (lower ? o.toLowerCase() : o);

export interface ParsedOpts {
  /** Option name -> values ('' for flags). */
  seen: Map<string, string[]>;
  /** Value words of options, by option name, for file checks. */
  valueWords: { name: string; word: Word }[];
  operands: Word[];
  unknown?: string;
  hazard?: { option: string; reason: string };
}

/**
 * GNU-style parse: options may follow operands, `--` ends them, short options cluster (-la, -n5), long options
 * take `=value` or the next word. A long option that abbreviates a hazard (`--out` for `--output`) is that hazard.
 */
export function parseOpts(
  args: Word[],
  table: OptTable,
  hazards: Map<string, string>,
  stopAtOperand = false,
): ParsedOpts & { rest: number } {
  const r: ParsedOpts & { rest: number } = { seen: new Map(), valueWords: [], operands: [], rest: args.length };
  const see = (name: string, v: string) => (r.seen.get(name) ?? r.seen.set(name, []).get(name)!).push(v);
  const hazardOf = (name: string) => {
    const h = hazards.get(name);
    if (h) return h;
    if (name.startsWith('--') && name.length >= 5)
      for (const [k, v] of hazards) if (k.startsWith('--') && k.startsWith(name)) return v;
    return undefined;
  };
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === undefined || v === '-' || !v.startsWith('-')) {
      if (stopAtOperand) break;
      r.operands.push(w);
      continue;
    }
    if (v === '--') {
      r.operands.push(...args.slice(i + 1));
      i = args.length;
      break;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = norm(eq < 0 ? v : v.slice(0, eq), table.lower);
      const h = hazardOf(name);
      if (h && !r.hazard) r.hazard = { option: name, reason: h };
      const kind = table.kinds.get(name);
      if (!kind) {
        r.unknown ??= v;
        continue;
      }
      if (eq >= 0) {
        if (kind === 'flag') r.unknown ??= v;
        see(name, v.slice(eq + 1));
        r.valueWords.push({ name, word: { value: v.slice(eq + 1), glob: undefined } });
      } else if (kind === 'value') {
        const next = args[++i];
        if (!next) {
          r.unknown ??= v;
          break;
        }
        see(name, next.value ?? '');
        r.valueWords.push({ name, word: next });
      } else see(name, '');
      continue;
    }
    if (table.numeric && /^-\d+$/.test(v)) {
      see('-#', v.slice(1));
      continue;
    }
    // A short cluster: -la, -n5, -C dir; tsc-style single-dash long names (-noEmit) are looked up whole first.
    const whole = norm(v, table.lower);
    if (v.length > 2 && (table.kinds.has(whole) || hazards.has(whole))) {
      const h = hazards.get(whole);
      if (h && !r.hazard) r.hazard = { option: whole, reason: h };
      const kind = table.kinds.get(whole);
      if (kind === 'value') {
        const next = args[++i];
        see(whole, next?.value ?? '');
        if (next) r.valueWords.push({ name: whole, word: next });
      } else if (kind) see(whole, '');
      else r.unknown ??= v;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const name = norm(`-${v[k]}`, table.lower);
      const h = hazards.get(name);
      if (h && !r.hazard) r.hazard = { option: name, reason: h };
      const kind = table.kinds.get(name);
      if (!kind) {
        r.unknown ??= v;
        break;
      }
      if (kind === 'flag') {
        see(name, '');
        continue;
      }
      const rest = v.slice(k + 1);
      if (rest) {
        see(name, rest);
        r.valueWords.push({ name, word: { value: rest, glob: undefined } });
      } else if (kind === 'value') {
        const next = args[++i];
        if (!next) {
          r.unknown ??= v;
          break;
        }
        see(name, next.value ?? '');
        r.valueWords.push({ name, word: next });
      } else see(name, '');
      break;
    }
  }
  r.rest = i;
  return r;
}

/** A hazard table from an object: option -> what makes it a hazard. */
export const hz = (o: Record<string, string>) => new Map(Object.entries(o));
