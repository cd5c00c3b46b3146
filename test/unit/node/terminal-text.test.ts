import { strict as assert } from 'node:assert';
import { TerminalTextCleaner, visibleCommandLine } from '../../../src/node/terminal-text';

const clean = (...chunks: string[]) => {
  const c = new TerminalTextCleaner();
  return chunks.map((x) => c.push(x)).join('') + c.end();
};

describe('host: text shown in the Forge terminal', () => {
  it('turns LF into CRLF once, keeps CRLF, lone CR (progress bars), tabs and colours', () => {
    assert.equal(clean('a\nb\r\nc\rd\te'), 'a\r\nb\r\nc\rd\te');
    assert.equal(clean('x\r', '\ny'), 'x\r\ny', 'a CRLF split across chunks gets no second CR');
    assert.equal(clean('\x1b[31mred\x1b[0m \x1b[1;32mok\x1b[m'), '\x1b[31mred\x1b[0m \x1b[1;32mok\x1b[m');
  });

  it('drops OSC (clipboard, links, titles), DCS, cursor and mode escapes and C1 controls', () => {
    const hostile = [
      '\x1b]52;c;ZXZpbA==\x07', // clipboard write
      '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\', // hyperlink
      '\x1b]0;fake title\x07',
      '\x1bP+q544e\x1b\\', // DCS request
      '\x1b[2J\x1b[H\x1b[?1049h\x1b[6n', // clear, home, alt screen, cursor report request
      '\x9b31m\x9d0;t\x07', // C1 CSI / OSC
      '\x1bc', // reset
      '\x00\x07\x7f',
    ].join('');
    assert.equal(clean(hostile + 'done'), 'clickdone');
  });

  it('holds back an escape split across chunks and drops an unfinished one at the end', () => {
    assert.equal(clean('a\x1b[3', '1mb'), 'a\x1b[31mb');
    assert.equal(clean('a\x1b]52;c;', 'Zm9v\x07b'), 'ab');
    assert.equal(clean('a\x1b]52;c;Zm9v'), 'a');
    assert.equal(clean('a\x1b'), 'a');
  });

  it('cleans a large output in one linear pass', () => {
    const big = 'line with \x1b[32mcolour\x1b[0m\n'.repeat(100_000);
    const t0 = performance.now();
    const out = clean(big);
    assert.ok(performance.now() - t0 < 2000);
    assert.equal(out.length, big.length + 100_000);
  });

  it('shows a command line with its control characters visible, never executed by the terminal', () => {
    assert.equal(visibleCommandLine('echo hi\x1b]52;c;x\x07'), 'echo hi^[]52;c;x^G');
    assert.equal(visibleCommandLine('a\nb'), 'a\r\n  b');
    assert.equal(visibleCommandLine('x\u009by'), 'x\\u009by');
  });
});
