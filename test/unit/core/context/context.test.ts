import assert from 'node:assert/strict';
import { ensureSections, SUMMARY_MARKER } from '../../../../src/core/context/compaction';
import { forkHistory } from '../../../../src/core/context/history';
import { capToolOutput, InMemoryOutputStore } from '../../../../src/core/context/output-store';
import { contextTokens, estimateMessagesTokens } from '../../../../src/core/context/tokens';
import type { ChatMessage } from '../../../../src/core/model/types';
import { callsTurn, doneTurn, ScriptedModel, textTurn, usage, call } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness } from '../../../support/loop-harness';

describe('core/context tokens', () => {
  it('anchors on provider input tokens and estimates chars/4 after it', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'x'.repeat(400) },
      { role: 'assistant', content: 'y'.repeat(392) },
    ];
    assert.equal(contextTokens({ inputTokens: 5000, messageCount: 1 }, history, { system: [], tools: [] }), 5000 + 100);
    // Without an anchor everything is estimated (system + tools + messages).
    assert.equal(
      contextTokens(undefined, history, { system: [{ id: 's', stable: true, text: 'z'.repeat(40) }], tools: [] }),
      10 + estimateMessagesTokens(history),
    );
  });
});

describe('core/context compaction', () => {
  it('compacts at 90% of the window: keeps the task and latest turns, structured summary, pairs intact', async () => {
    const summarizer = new ScriptedModel([
      textTurn('## Goal\nRead the files\n## Decisions\nnone\n## Files touched\nf0.ts, f1.ts\n## Next steps\nread f6'),
    ]);
    const turns = Array.from({ length: 6 }, (_, i) => callsTurn(['read_file', { path: `f${i}.ts` }]));
    turns[5] = [...call('read_file', { path: 'f5.ts' }), usage(1850, 10), { type: 'finish', reason: 'tool_calls' }];
    const h = harness([...turns, doneTurn()], { summarizer, config: { contextWindow: 2000 } });
    const report = await h.agent.send('Read all the files');
    assert.equal(report.reason, 'done');

    const compactions = h.ofType('compaction');
    assert.equal(compactions.length, 1);
    assert.ok(compactions[0].beforeTokens >= 1800);
    assert.ok(compactions[0].afterTokens < compactions[0].beforeTokens);
    for (const section of ['Goal', 'Decisions', 'Files touched', 'Open errors', 'Next steps']) {
      assert.match(compactions[0].summary, new RegExp(`## ${section}`));
    }
    // The summariser saw the middle of the conversation and the tracked facts.
    const sumPrompt = summarizer.requests[0].messages[0].content;
    assert.match(sumPrompt, /CALL read_file \{"path":"f0\.ts"\}/);
    assert.match(sumPrompt, /Files read: f0\.ts/);

    const sent = h.model.requests[6].messages;
    assert.equal(sent[0].content, 'Read all the files');
    assert.ok(sent[1].content.startsWith(SUMMARY_MARKER));
    assert.equal(sent.length, 2 + 4 * 2); // task + summary + 4 kept turns (assistant + result each)
    assertHistoryConsistent(sent);
    // Kept the latest turns verbatim.
    assert.match(JSON.stringify(sent.at(-1)), /content of f5\.ts/);
    assert.doesNotMatch(JSON.stringify(sent.slice(2)), /f0\.ts/);
  });

  it('does not compact below the threshold', async () => {
    const summarizer = new ScriptedModel([]);
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], {
      summarizer,
      config: { contextWindow: 100_000 },
    });
    await h.agent.send('t');
    assert.equal(summarizer.requests.length, 0);
    assert.equal(h.ofType('compaction').length, 0);
  });

  it('a failing summariser yields a warning, not a crash', async () => {
    const summarizer = new ScriptedModel([{ error: new Error('summariser down') }]);
    const turns = Array.from({ length: 6 }, (_, i) => [
      ...call('read_file', { path: `f${i}.ts` }),
      usage(1900, 1),
      { type: 'finish' as const, reason: 'tool_calls' as const },
    ]);
    const h = harness([...turns, doneTurn()], { summarizer, config: { contextWindow: 2000 } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.ok(h.ofType('warning').some((w) => /compaction failed: summariser down/.test(w.message)));
  });

  it('ensureSections adds missing sections', () => {
    const out = ensureSections('## Goal\nx');
    assert.match(out, /## Open errors\n\(not stated\)/);
    assert.match(out, /## Goal\nx/);
  });

  it('forkHistory drops a trailing unanswered tool-call turn', () => {
    const h: ChatMessage[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'd', name: 'delegate_task', args: {}, rawArgs: '{}' }] },
    ];
    assert.deepEqual(forkHistory(h), [{ role: 'user', content: 'task' }]);
  });
});

describe('core/context tool output cap', () => {
  it('caps head+tail with a ref note; full text kept', async () => {
    const store = new InMemoryOutputStore();
    const text = 'a'.repeat(600) + 'M'.repeat(5000) + 'z'.repeat(400);
    const capped = await capToolOutput(text, 1000, store, { toolName: 't', toolCallId: 'c' });
    assert.equal(capped.ref, 'out-1');
    assert.ok(capped.content.startsWith('a'.repeat(600) + '\n\n[... output truncated'));
    assert.ok(capped.content.endsWith('z'.repeat(400)));
    assert.doesNotMatch(capped.content, /M/);
    assert.equal(await store.get('out-1'), text);
  });

  it('the model sees the capped output and can page the rest with read_output', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const tool = fakeReadTool([], async () => ({ content: big }));
    const h = harness(
      [
        callsTurn(['read_file', { path: 'huge.log' }]),
        callsTurn(['read_output', { ref: 'out-1', offset: 600, limit: 300 }]),
        doneTurn(),
      ],
      {
        tools: [tool],
        config: { toolOutputCapChars: 1000 },
      },
    );
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    const first = h.model.requests[1].messages.at(-1)!.content;
    assert.ok(first.length < 1400);
    assert.match(first, /Full output ref "out-1": call read_output/);
    assert.equal(h.ofType('tool_result')[0].fullOutputRef, 'out-1');
    assert.equal(report.steps[0].toolCalls[0].resultChars, big.length);
    const page = h.model.requests[2].messages.at(-1)!.content;
    assert.ok(page.includes(big.slice(600, 900)));
    assert.match(page, /chars 600-900 of \d+\. More remains: next offset 900/);
  });

  it('read_output with an unknown ref is an error result', async () => {
    const h = harness([callsTurn(['read_output', { ref: 'out-99' }]), doneTurn()]);
    await h.agent.send('t');
    assert.match(h.model.requests[1].messages.at(-1)!.content, /No stored output with ref "out-99"/);
  });
});
