import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../../src/core/loop/events';
import type { ApprovalRequest } from '../../../src/core/safety/approval';
import { describeRequest, makeStyle, renderEditDiff } from '../../../src/cli/approvals';
import { jsonLine, JsonLinesWriter, ProgressPrinter } from '../../../src/cli/output';
import { ControlStripper, plain, SecretMasker } from '../../../src/cli/terminal-safe';

const KEY = 'sk-forge-test-secret-4242';
/** Any terminal control but LF, TAB and CRLF: ESC, C0, DEL, C1. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;
const OSC52 = '\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07';

/** Every way to cut a text into two writes, and a few into three. */
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  for (let i = 1; i < text.length; i += 3)
    for (let j = i + 1; j < text.length; j += 5) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  return out;
}

/** No 5-character piece of the key in the text (no half of it was printed). */
function noPieceOfKey(text: string, label: string): void {
  for (let i = 0; i + 5 <= KEY.length; i++)
    assert.ok(
      !text.includes(KEY.slice(i, i + 5)),
      `${label}: a piece of the key (${KEY.slice(i, i + 5)}) in ${JSON.stringify(text)}`,
    );
}

describe('cli/terminal-safe: terminal controls are stripped', () => {
  const cases: [string, string, string][] = [
    ['CSI (colour, cursor, erase)', 'a\x1b[31mred\x1b[0m \x1b[2J\x1b[1;1Hb\x1b[?1049h', 'ared b'],
    ['OSC 52 clipboard, BEL-terminated', `x${OSC52}y`, 'xy'],
    ['OSC 52 clipboard, ST-terminated', 'x\x1b]52;c;ZXZpbA==\x1b\\y', 'xy'],
    ['OSC 8 link', '\x1b]8;;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\', 'click'],
    ['OSC 0 title', '\x1b]0;pwned\x07ok', 'ok'],
    ['DCS', 'a\x1bP1$r0m\x1b\\b', 'ab'],
    ['APC, PM, SOS', 'a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d', 'abcd'],
    ['lone ESC and two-character escapes', 'a\x1bcb\x1b7c\x1b(Bd\x1b', 'abcd'],
    ['C1 CSI and OSC (8-bit)', 'a\u009b31mb\u009d52;c;eA==\u0007c\u009c', 'abc'],
    ['other C1 controls', 'a\u0085b\u008dc\u0090x\u009cd', 'abcd'],
    ['C0 controls but LF and TAB', 'a\x00b\x07c\x08d\x0be\x0cf\x7fg\th\ni', 'abcdefg\th\ni'],
    ['CR only in CRLF', 'over\rwrite\r\nnext\r', 'overwrite\r\nnext'],
    ['unicode text stays', 'héllo — 你好 🙂', 'héllo — 你好 🙂'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      assert.equal(plain(input), expected);
      for (const parts of splits(input)) {
        const s = new ControlStripper();
        const out = parts.map((p) => s.push(p)).join('') + s.end();
        assert.equal(out, expected, `split ${JSON.stringify(parts)}`);
      }
    });
  }

  it('an unterminated string swallows only its own payload, bounded', () => {
    assert.equal(plain('a\x1b]52;c;never-ends'), 'a');
    const s = new ControlStripper();
    const out = s.push('a\x1b]52;c;' + 'A'.repeat(20_000) + ' tail');
    assert.ok(
      !CONTROL.test(out) && out.startsWith('a') && out.endsWith(' tail'),
      'no escape, text resumes after a bounded payload',
    );
  });
});

describe('cli/terminal-safe: secrets masked across writes', () => {
  const text = `before ${KEY} after`;

  it('a key split anywhere, in two or three writes, is never printed in pieces', () => {
    for (const parts of splits(text)) {
      const m = new SecretMasker([KEY]);
      const outs = parts.map((p) => m.push(p));
      outs.push(m.end());
      assert.equal(outs.join(''), 'before *** after', JSON.stringify(parts));
      for (const o of outs) noPieceOfKey(o, JSON.stringify(parts));
    }
  });

  it('holds back only what could still become a key', () => {
    const m = new SecretMasker([KEY]);
    assert.equal(m.push('hello world'), 'hello world', 'nothing held: no end of it starts a key');
    assert.equal(m.push(' ask-'), ' a', 'only "sk-" is held');
    assert.equal(m.push('nothing'), 'sk-nothing');
    assert.equal(m.push(' sk-forge'), ' ');
    assert.equal(m.end(), 'sk-forge', 'at the end the held text is printed (it never became a key)');
    assert.equal(
      new SecretMasker([undefined, 'short']).push('short'),
      'short',
      'secrets under 6 characters are not masked',
    );
  });
});

describe('cli/output: what the runner prints', () => {
  const ev = (e: Record<string, unknown>) => ({ runId: 'r', ...e }) as AgentEvent;
  const hostile = [
    'Hi ',
    `sk-forge-te`,
    `st-secret-4242 ${OSC52.slice(0, 9)}`,
    `${OSC52.slice(9)}\x1b[2J\u009b6n\rdone`,
  ];

  for (const color of [false, true]) {
    it(`progress: model text and thinking, tool results and warnings carry no controls and no piece of a key (color ${color})`, () => {
      let written = '';
      const p = new ProgressPrinter({
        write: (s) => (written += s),
        style: makeStyle(color),
        verbose: true,
        secrets: [KEY],
      });
      for (const d of hostile) p.on(ev({ type: 'text_delta', delta: d }));
      for (const d of hostile) p.on(ev({ type: 'thinking_delta', delta: d }));
      p.on(
        ev({ type: 'tool_call_end', id: 't1', name: 'execute_command', args: { command: `echo \x1b]8;;x\x1b\\hi` } }),
      );
      p.on(
        ev({
          type: 'tool_result',
          id: 't1',
          name: 'execute_command',
          isError: true,
          latencyMs: 3,
          content: `boom \x1b]52;c;eA==\x07 \u0085`,
        }),
      );
      p.on(
        ev({
          type: 'tool_result',
          id: 't2',
          name: 'read_file',
          isError: false,
          latencyMs: 3,
          content: `line\x1b[31m\r\n${KEY}`,
        }),
      );
      p.on(ev({ type: 'warning', message: `careful \x1b]0;title\x07` }));
      p.on(ev({ type: 'memory_learned', memories: [{ id: 'm', type: 'semantic', content: 'x\x1b[8mhidden' }] }));
      p.endStreams();
      const ours = written.replace(/\x1b\[(1|2|22|31|32|33|36|39)m/g, ''); // Forge's own styling
      assert.ok(!CONTROL.test(ours), `a control was printed: ${JSON.stringify(written)}`);
      noPieceOfKey(written, 'progress');
      assert.match(written, /Hi \*\*\* done/);
      assert.match(written, /execute_command echo hi .*boom/);
      if (color) assert.match(written, /\x1b\[31m/, 'Forge still colours its own marks');
    });
  }

  it('JSON Lines: a key split across deltas is masked in the deltas, which still add up; C1 and DEL are escaped', () => {
    for (const parts of splits(`pre ${KEY} post`)) {
      const lines: string[] = [];
      const w = new JsonLinesWriter((l) => lines.push(l), [KEY]);
      for (const d of parts) w.on(ev({ type: 'text_delta', delta: d }));
      w.on(ev({ type: 'step_end', step: {} }));
      for (const l of lines) noPieceOfKey(l, JSON.stringify(parts));
      const events = lines.map((l) => JSON.parse(l) as { type: string; delta?: string });
      assert.equal(
        events
          .filter((e) => e.type === 'text_delta')
          .map((e) => e.delta)
          .join(''),
        'pre *** post',
      );
      assert.equal(events.at(-1)!.type, 'step_end');
    }
    const line = jsonLine({ delta: `\x1b]52;c;x\x07\u009b\u0085\u007f\u2028` });
    assert.ok(!CONTROL.test(line.slice(0, -1)) && !/[\u2028\u2029]/.test(line), line);
    assert.deepEqual(JSON.parse(line), { delta: `\x1b]52;c;x\x07\u009b\u0085\u007f\u2028` }, 'the value is unchanged');
  });

  it('approval questions show the command, paths and diffs without controls', () => {
    const style = makeStyle(false);
    const cmd = {
      id: 'a',
      toolName: 'execute_command',
      risk: 'execute',
      args: {},
      preview: { kind: 'command', command: `ls ${OSC52}`, cwd: '/w\x1b[2J' },
    } as unknown as ApprovalRequest;
    assert.equal(describeRequest(cmd, style), 'Run ls   (in /w)');
    const edit = {
      id: 'b',
      toolName: 'write_file',
      risk: 'write',
      args: {},
      preview: { kind: 'edit', path: 'a\x1b]0;t\x07.ts', original: 'x\r\n', proposed: `y${OSC52}\r\n` },
    } as unknown as ApprovalRequest;
    assert.ok(!CONTROL.test(describeRequest(edit, style)), describeRequest(edit, style));
    assert.ok(!CONTROL.test(renderEditDiff('p', 'a\x1b[31m\n', 'b\u009b1m\n', false, style)));
    const generic = {
      id: 'c',
      toolName: 'mcp__x__\x1b[8mt',
      risk: 'network',
      args: { q: '\u009d52;c;eA==\u0007' },
    } as unknown as ApprovalRequest;
    assert.ok(!CONTROL.test(describeRequest(generic, style)), describeRequest(generic, style));
  });
});
