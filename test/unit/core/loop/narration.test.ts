import assert from 'node:assert/strict';
import { ACT_NUDGE, announcesAction } from '../../../../src/core/loop/narration';
import { TEXT_ONLY_REMINDER } from '../../../../src/core/loop/run';
import { callsTurn, doneTurn, textTurn } from '../../../support/scripted-model';
import { fakeReadTool, harness } from '../../../support/loop-harness';

// Narration as local models (Qwen, Llama, Mistral through Ollama / LM Studio) write it before acting.
const NARRATION = [
  "I'll look into the failing tests.",
  'Let me check the contents of src/greet.js first.',
  "Sure! I'm going to run the test suite to see what fails.",
  'To fix this, I need to read the config file.',
  'The bug is probably in the parser. Let me take a look at parser.ts.',
  "Okay, I understand the task. First, I'll examine the project structure to understand how it's organized.",
  "Let's start by listing the files in the workspace.",
  'I will now update the README with the new instructions.',
  'Great question. I’ll search the codebase for usages of `greet`.',
  "Here's what I'll do:",
  'Now I will run `npm test` to verify the fix.',
  '**Plan**\n\n1. Read the file\n2. Fix the bug\n\nLet me start by reading `src/app.ts`.',
];

// Plain answers, offers and questions: the run must end at once.
const ANSWERS = [
  'The function returns the sum of its two arguments.',
  'You can run the tests with `npm test`. Let me know if you need anything else.',
  'Hello! How can I help you today?',
  "If you'd like, I'll add tests for the edge cases.",
  'Would you like me to fix the failing test?',
  "I'd be happy to help. What should I look at?",
  'Should I check the other files too?',
  'Yes: `greet()` is exported from src/greet.js and used in two places.',
  "I'll explain: the loop stops when the model calls no tool.",
  'Python lists are mutable, tuples are not.',
  '',
  "Done. I've updated the README.",
  "```js\n// I'll check this later\nconst x = 1;\n```\nThat snippet declares a constant.",
];

describe('core/loop narration (nudge to act)', () => {
  for (const text of NARRATION) {
    it(`announces an action: ${JSON.stringify(text.slice(0, 50))}`, () => {
      assert.equal(announcesAction(text), true);
    });
  }
  for (const text of ANSWERS) {
    it(`is a plain answer: ${JSON.stringify(text.slice(0, 50))}`, () => {
      assert.equal(announcesAction(text), false);
    });
  }

  it('a model that narrates and calls no tool is nudged once, then acts and finishes', async () => {
    const reads: string[] = [];
    const h = harness(
      [
        textTurn("I'll look into the failing tests."),
        callsTurn(['read_file', { path: 'test/a.test.js' }]),
        doneTurn('Fixed'),
      ],
      { tools: [fakeReadTool(reads)] },
    );
    const report = await h.agent.send('The tests fail, fix them');
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'Fixed');
    assert.deepEqual(reads, ['test/a.test.js']);
    const second = h.model.requests[1].messages;
    assert.deepEqual(second.at(-1), { role: 'user', content: ACT_NUDGE });
    assert.equal(second.at(-2)!.role, 'assistant');
  });

  it('nudges at most once: a second narration ends the run as the reply', async () => {
    const h = harness([textTurn('Let me check the config.'), textTurn("I'll check the config now."), doneTurn()], {
      tools: [fakeReadTool()],
    });
    const report = await h.agent.send('Why does it crash?');
    assert.equal(report.reason, 'converse');
    assert.equal(report.detail, "I'll check the config now.");
    assert.equal(h.model.requests.length, 2);
    assert.equal(h.agent.history.filter((m) => m.role === 'user' && m.content === ACT_NUDGE).length, 1);
  });

  it('a plain answer ends at once, with no nudge and one request', async () => {
    const h = harness([textTurn('The function returns the sum of its two arguments.'), doneTurn('never')], {
      tools: [fakeReadTool()],
    });
    const report = await h.agent.send('What does add() do?');
    assert.equal(report.reason, 'converse');
    assert.equal(h.model.requests.length, 1);
    assert.ok(!h.agent.history.some((m) => m.role === 'user' && m.content === ACT_NUDGE));
  });

  it('a mode with no acting tools is not nudged', async () => {
    const h = harness([textTurn("I'll look into it."), doneTurn('never')], { tools: [] });
    const report = await h.agent.send('hi');
    assert.equal(report.reason, 'converse');
    assert.equal(h.model.requests.length, 1);
  });

  it('after a tool call the existing reminder applies (not the nudge)', async () => {
    const h = harness(
      [
        callsTurn(['read_file', { path: 'a' }]),
        textTurn('Let me check b next.'),
        callsTurn(['read_file', { path: 'b' }]),
        doneTurn(),
      ],
      { tools: [fakeReadTool()] },
    );
    const report = await h.agent.send('go');
    assert.equal(report.reason, 'done');
    assert.equal(h.model.requests[2].messages.at(-1)!.content, TEXT_ONLY_REMINDER);
    assert.ok(!h.agent.history.some((m) => m.role === 'user' && m.content === ACT_NUDGE));
  });
});
