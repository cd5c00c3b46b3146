// Text for the Forge terminal (a pseudo-terminal that shows commands Forge runs): a command's output is
// shown as a terminal would show it, but only colour and cursor-to-line-start survive. Any other escape
// (OSC 8 links, OSC 52 clipboard writes, title changes, cursor moves, mode switches) and C1 control is
// dropped, so a hostile program cannot reach the clipboard or forge what the user sees. No 'vscode' import.

const SGR = /^\x1b\[[0-9;:]*m$/;

/** Cleans output chunk by chunk: an escape sequence split across chunks is held back until it is whole. */
export class TerminalTextCleaner {
  private carry = '';
  /** The last character written was a CR (so an LF right after it needs no CR of its own). */
  private lastWasCr = false;

  push(chunk: string): string {
    return this.clean(this.carry + chunk, false);
  }

  /** The rest at the end of the output (an unfinished escape is dropped). */
  end(): string {
    const rest = this.carry;
    this.carry = '';
    return rest ? this.clean(rest, true) : '';
  }

  private clean(s: string, final: boolean): string {
    this.carry = '';
    let out = '';
    let i = 0;
    const n = s.length;
    while (i < n) {
      const c = s.charCodeAt(i);
      const kind = c === 0x1b ? s.charCodeAt(i + 1) : C1_INTRODUCERS.get(c);
      if (c === 0x1b || kind !== undefined) {
        const len = escapeLength(s, i, c === 0x1b ? 2 : 1, kind);
        if (len === 0) {
          if (!final && s.length - i < 4096) this.carry = s.slice(i);
          break; // unfinished: wait for the rest (or drop it at the end)
        }
        const seq = s.slice(i, i + len);
        if (SGR.test(seq)) out += seq;
        i += len;
        continue;
      }
      if (c === 0x0a) {
        out += this.lastWasCr ? '\n' : '\r\n';
        this.lastWasCr = false;
        i++;
        continue;
      }
      if (c === 0x0d) {
        out += '\r';
        this.lastWasCr = true;
        i++;
        continue;
      }
      // Other C0 controls but tab and backspace, DEL and the other C1 controls are not shown.
      if ((c < 0x20 && c !== 0x09 && c !== 0x08) || (c >= 0x7f && c <= 0x9f)) {
        i++;
        continue;
      }
      let j = i + 1;
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d < 0x20 || (d >= 0x7f && d <= 0x9f)) break;
        j++;
      }
      out += s.slice(i, j);
      this.lastWasCr = false;
      i = j;
    }
    return out;
  }
}

/** C1 controls that open a sequence, as the character after ESC that opens the same sequence. */
const C1_INTRODUCERS = new Map<number, number>([
  [0x9b, 0x5b],
  [0x9d, 0x5d],
  [0x90, 0x50],
  [0x98, 0x58],
  [0x9e, 0x5e],
  [0x9f, 0x5f],
]);

/**
 * Length of the escape sequence at `i` whose body starts `bodyAt` characters in (after ESC x or a C1
 * introducer), or 0 when the text ends before the sequence does. CSI ends at a final byte; OSC, DCS, SOS, PM
 * and APC end at BEL or ESC \; any other escape is two characters.
 */
function escapeLength(s: string, i: number, bodyAt: number, kind: number | undefined): number {
  if (kind === undefined || Number.isNaN(kind)) return 0;
  if (kind === 0x5b) {
    // CSI: parameters and intermediates, then one final byte 0x40-0x7e.
    for (let j = i + bodyAt; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d >= 0x40 && d <= 0x7e) return j - i + 1;
      if (d < 0x20 || d > 0x7e) return j - i; // malformed: drop what came so far
    }
    return 0;
  }
  if (kind === 0x5d || kind === 0x50 || kind === 0x58 || kind === 0x5e || kind === 0x5f) {
    for (let j = i + bodyAt; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === 0x07 || d === 0x9c) return j - i + 1;
      if (d === 0x1b) return s.charCodeAt(j + 1) === 0x5c ? j - i + 2 : Number.isNaN(s.charCodeAt(j + 1)) ? 0 : j - i;
    }
    return 0;
  }
  return 2;
}

/** A command line as one visible line: control characters shown as ^X / \uXXXX, never run by the terminal. */
export function visibleCommandLine(command: string): string {
  let out = '';
  for (const ch of command) {
    const c = ch.codePointAt(0)!;
    if (c === 0x0a) out += '\r\n  ';
    else if (c === 0x09) out += ch;
    else if (c < 0x20) out += `^${String.fromCharCode(c + 0x40)}`;
    else if (c >= 0x7f && c <= 0x9f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

/** A duration as the panel's rows write it (webview-ui/src/dom.ts formatDuration): the same figure reads the same. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}
