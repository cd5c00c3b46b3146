import assert from 'node:assert/strict';
import type { ModelEvent } from '../../../../src/core/model/types';
import { interpretToolBody, XmlToolCallParser } from '../../../../src/core/tools/xml-parser';

function run(chunks: string[]): ModelEvent[] {
  let n = 0;
  const p = new XmlToolCallParser({ newId: () => `t${++n}` });
  const out: ModelEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

/** Merges adjacent text / thinking deltas and drops tool_call_delta, for order-insensitive-to-chunking checks. */
function normalize(events: ModelEvent[]): ModelEvent[] {
  const out: ModelEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === 'tool_call_delta') continue;
    if ((e.type === 'text' || e.type === 'thinking') && last?.type === e.type) last.delta += e.delta;
    else out.push({ ...e });
  }
  return out;
}

const CALL = '<tool>{"server_name": "local", "tool_name": "read_file", "arguments": {"path": "src/a.ts"}}</tool>';
const DOC = `<thinking>I need a.ts; 1 < 2 and <b> is bold.</thinking>Let me look <at> it: ${CALL} then <tool>{"tool_name": "list_files"}</tool>done <t`;

describe('XmlToolCallParser', () => {
  it('parses a single call', () => {
    const events = run([CALL]);
    assert.deepEqual(normalize(events), [
      { type: 'tool_call_start', id: 't1', name: 'read_file' },
      {
        type: 'tool_call_end',
        id: 't1',
        name: 'read_file',
        args: { path: 'src/a.ts' },
        rawArgs: '{"path":"src/a.ts"}',
      },
    ]);
    const deltas = events
      .filter((e) => e.type === 'tool_call_delta')
      .map((e) => (e as { argsDelta: string }).argsDelta);
    assert.equal(deltas.join(''), CALL.slice('<tool>'.length, -'</tool>'.length));
  });

  it('handles text, thinking, multiple calls and a stray "<t" at the end', () => {
    assert.deepEqual(normalize(run([DOC])), [
      { type: 'thinking', delta: 'I need a.ts; 1 < 2 and <b> is bold.' },
      { type: 'text', delta: 'Let me look <at> it: ' },
      { type: 'tool_call_start', id: 't1', name: 'read_file' },
      {
        type: 'tool_call_end',
        id: 't1',
        name: 'read_file',
        args: { path: 'src/a.ts' },
        rawArgs: '{"path":"src/a.ts"}',
      },
      { type: 'text', delta: ' then ' },
      { type: 'tool_call_start', id: 't2', name: 'list_files' },
      { type: 'tool_call_end', id: 't2', name: 'list_files', args: {}, rawArgs: '{}' },
      { type: 'text', delta: 'done <t' },
    ]);
  });

  it('gives the same result when split into two chunks at every position', () => {
    const expected = normalize(run([DOC]));
    for (let i = 0; i <= DOC.length; i++) {
      assert.deepEqual(normalize(run([DOC.slice(0, i), DOC.slice(i)])), expected, `split at ${i}`);
    }
  });

  it('gives the same result one character at a time, and never leaks a partial tag as text', () => {
    assert.deepEqual(normalize(run([...DOC])), normalize(run([DOC])));
    const p = new XmlToolCallParser();
    const pushed = [...DOC].flatMap((c) => p.push(c));
    for (const e of pushed) if (e.type === 'text') assert.doesNotMatch(e.delta, /<(t|th|thi|thin|to|too|tool)$/);
    assert.deepEqual(p.end(), [{ type: 'text', delta: '<t' }]);
  });

  it('emits tool_call_end as soon as </tool> arrives, before the stream ends', () => {
    const p = new XmlToolCallParser();
    const first = p.push('Sure. <tool>{"tool_name": "read_file", "argu');
    assert.deepEqual(
      first.map((e) => e.type),
      ['text', 'tool_call_start', 'tool_call_delta'],
    );
    const second = p.push('ments": {"path": "x"}}</tool> and more');
    assert.deepEqual(
      second.map((e) => e.type),
      ['tool_call_delta', 'tool_call_end', 'text'],
    );
  });

  it('reports malformed JSON precisely, keeping the name when it can be seen', () => {
    const [end] = run(['<tool>{"tool_name": "read_file", "arguments": {"path": "a.ts",}}</tool>']).filter(
      (e) => e.type === 'tool_call_end',
    );
    assert.ok(end.type === 'tool_call_end');
    assert.equal(end.name, 'read_file');
    assert.equal(end.args, undefined);
    assert.match(end.parseError!, /^invalid JSON in <tool> block: .* at char 56 of 58 \(near `.*"a\.ts",}}`\)$/);
  });

  it('reports a missing tool_name with the keys that were present', () => {
    const [end] = run(['<tool>{"server_name": "local", "arguments": {}}</tool>']).filter(
      (e) => e.type === 'tool_call_end',
    );
    assert.ok(end.type === 'tool_call_end');
    assert.equal(end.parseError, 'missing "tool_name" in <tool> block (keys present: server_name, arguments)');
  });

  it('reports non-object arguments and non-object bodies', () => {
    assert.equal(
      interpretToolBody('{"tool_name": "x", "arguments": [1]}').parseError,
      '"arguments" must be a JSON object, got an array',
    );
    assert.equal(interpretToolBody('"read_file"').parseError, '<tool> block must hold a JSON object, got string');
    assert.match(interpretToolBody('  ').parseError!, /^empty <tool> block/);
    assert.deepEqual(interpretToolBody('{"tool_name": "x", "arguments": "{\\"a\\": 1}"}').args, { a: 1 });
    assert.deepEqual(interpretToolBody('```json\n{"tool_name": "x", "arguments": {"a": 2}}\n```').args, { a: 2 });
  });

  it('reports an unterminated <tool> block at end of stream', () => {
    const events = run(['Calling <tool>{"tool_name": "read_file", "arguments": {"path": "a.ts"}}</to']);
    const end = events.find((e) => e.type === 'tool_call_end');
    assert.ok(end?.type === 'tool_call_end');
    assert.equal(end.name, 'read_file');
    assert.equal(end.args, undefined);
    assert.match(end.parseError!, /^unterminated <tool> block: the response ended before <\/tool> after \d+ chars/);
    assert.ok(end.rawArgs.endsWith('</to'), 'held-back bytes are part of the raw body');
  });

  it('flushes an unterminated <thinking> block as thinking', () => {
    assert.deepEqual(normalize(run(['<thinking>hmm <', '/think'])), [{ type: 'thinking', delta: 'hmm </think' }]);
  });

  it('parses faster than 50 MB/s (best of 3 runs over 8 MB in 256-byte chunks, after warm-up)', () => {
    const unit = `Some code: if (a < b && c > d) { x = "<div>"; }\n${CALL}\n<thinking>why ${'z'.repeat(200)}</thinking>\n`;
    const count = Math.ceil((8 * 1024 * 1024) / unit.length);
    const doc = unit.repeat(count);
    const chunks: string[] = [];
    for (let i = 0; i < doc.length; i += 256) chunks.push(doc.slice(i, i + 256));
    let best = 0;
    for (let run = 0; run < 4; run++) {
      const p = new XmlToolCallParser();
      let calls = 0;
      const t0 = process.hrtime.bigint();
      for (const c of chunks) for (const e of p.push(c)) if (e.type === 'tool_call_end') calls++;
      p.end();
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      assert.equal(calls, count);
      if (run > 0) best = Math.max(best, doc.length / 1024 / 1024 / secs);
    }
    assert.ok(best > 50, `${best.toFixed(1)} MB/s`);
  });
});
