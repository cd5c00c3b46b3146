// What the CLI prints that came from the model, a tool, an MCP server or a file is made safe for a terminal:
// every control sequence (CSI, OSC — clipboard writes (52), links (8), titles —, DCS, APC, PM, SOS, lone
// escapes), every C1 control and every other C0 control but newline and tab is removed, and a CR survives
// only as part of CRLF. Only Forge's own styling reaches the terminal as escapes. A sequence split across two
// writes is still removed whole: ControlStripper carries its state from one write to the next.
//
// SecretMasker does the same across writes for known secrets (the API keys): a key streamed in two deltas is
// never printed in halves. It holds back only a tail that could still become a key, until the next write or
// the end.

const ESC = 0x1b;
/** Strings long past this are no control sequence a terminal would honour here: what follows is text again. */
const MAX_SEQUENCE = 8192;

type State = 'text' | 'esc' | 'escInter' | 'csi' | 'string' | 'stringEsc';

/** Removes terminal controls from a stream of text, write by write. */
export class ControlStripper {
  private state: State = 'text';
  private seqLen = 0;
  /** A CR was the last character: it is kept only if an LF follows. */
  private cr = false;

  push(chunk: string): string {
    let out = '';
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case 'text':
          break;
        case 'esc':
          this.seqLen++;
          if (c === 0x5b)
            this.enter('csi'); // [
          else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f)
            this.enter('string'); // ] P X ^ _
          else if (c >= 0x20 && c <= 0x2f)
            this.enter('escInter'); // ESC ( B, ESC # 8 ...
          else if (c === ESC) this.enter('esc');
          else if (c >= 0x30 && c <= 0x7e)
            this.state = 'text'; // ESC 7, ESC c, ESC M ...: two characters
          else {
            this.state = 'text';
            i--;
          } // not a sequence after all: look at it as text (it has no ESC now)
          continue;
        case 'escInter':
          if (c >= 0x20 && c <= 0x2f && ++this.seqLen < MAX_SEQUENCE) continue;
          this.state = 'text';
          if (c >= 0x30 && c <= 0x7e) continue;
          i--;
          continue;
        case 'csi':
          if (c >= 0x20 && c <= 0x3f && ++this.seqLen < MAX_SEQUENCE) continue; // parameters, intermediates
          this.state = 'text';
          if (c >= 0x40 && c <= 0x7e) continue; // the final byte
          i--; // cancelled (a control, or too long): the character is judged as text
          continue;
        case 'string':
          // OSC, DCS, SOS, PM, APC: everything up to BEL or ST (ESC \ or 0x9c) is the sequence's.
          if (c === 0x07 || c === 0x9c) {
            this.state = 'text';
            continue;
          }
          if (c === ESC) {
            this.state = 'stringEsc';
            continue;
          }
          if (++this.seqLen >= MAX_SEQUENCE) this.state = 'text';
          continue;
        case 'stringEsc':
          if (c === 0x5c) {
            this.state = 'text';
            continue;
          } // ST
          this.enter('esc'); // ESC inside a string cancels it and starts a sequence of its own
          i--;
          continue;
      }
      // Text.
      if (this.cr) {
        this.cr = false;
        if (c === 0x0a) {
          out += '\r\n';
          continue;
        }
      }
      if (c === ESC) {
        this.enter('esc');
        continue;
      }
      if (c === 0x9b) {
        this.enter('csi');
        continue;
      }
      if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
        this.enter('string');
        continue;
      }
      if (c === 0x0d) {
        this.cr = true;
        continue;
      }
      if (c === 0x0a || c === 0x09) {
        out += chunk[i];
        continue;
      }
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) continue;
      out += chunk[i];
    }
    return out;
  }

  /** The end of the stream: an unfinished sequence and a lone CR are dropped. */
  end(): string {
    this.state = 'text';
    this.cr = false;
    return '';
  }

  private enter(state: State): void {
    this.state = state;
    this.seqLen = 0;
  }
}

/** Untrusted text with every terminal control removed (for text printed whole, not streamed). */
export function plain(text: string): string {
  const s = new ControlStripper();
  return s.push(String(text)) + s.end();
}

/** Characters JSON.stringify leaves raw that a terminal or a JavaScript reader may treat specially. */
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029]/g;

/** JSON with DEL, the C1 controls and the line separators escaped too (JSON.stringify escapes only C0). */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const MASK = '***';

/** Replaces known secrets in a stream of writes, including one split across writes. */
export class SecretMasker {
  private readonly secrets: string[];
  private held = '';

  /** Secrets shorter than 6 characters are not masked (they would mask ordinary words). */
  constructor(secrets: readonly (string | undefined)[]) {
    this.secrets = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6))].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** What can be printed now; a tail that could be the start of a secret waits for the next write. */
  push(chunk: string): string {
    if (this.secrets.length === 0) return chunk;
    const text = this.mask(this.held + chunk);
    const keep = this.pending(text);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** The held-back tail (it never became a secret). */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  /** Whether a tail is held back. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** The text with every whole secret replaced (for text written whole). */
  mask(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(MASK);
    return out;
  }

  /** The length of the longest end of the text that is the start of a secret (and not a whole one). */
  private pending(text: string): number {
    let best = 0;
    for (const s of this.secrets) {
      for (let k = Math.min(s.length - 1, text.length); k > best; k--) {
        if (text.endsWith(s.slice(0, k))) {
          best = k;
          break;
        }
      }
    }
    return best;
  }
}
