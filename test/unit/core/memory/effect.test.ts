// Learnings change behaviour: run 1 fails because npm is not supported and reflects "use pnpm"; run 2 (a new
// Agent over the same store on disk) sends that learning to the model, and the model follows it.
// Real loop (Agent), real provider SDK (openai via createModel), real HTTP to the loopback server, real files.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { Agent } from '../../../../src/core/loop/agent';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { openForgeMemory, WORKSPACE_MEMORY_FILE, type ForgeMemory } from '../../../../src/core/memory';
import type { Approver } from '../../../../src/core/safety/approval';
import type { Tool } from '../../../../src/core/tools/types';
import { NodeWorkspaceFs } from '../../../../src/node';
import { createModel } from '../../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { NodeMemoryFileIO } from '../../../../src/node/memory-file-io';

const LEARNING = 'In this repo, run tests with pnpm (pnpm test), not npm';
const NPM_FAILURE = 'npm ERR! This repository uses pnpm workspaces; npm is not supported here.';

const approveAll: Approver = { request: async () => ({ kind: 'approve' }) };

function commandTool(commands: string[]): Tool {
  return {
    name: 'execute_command',
    description: 'Run a shell command in the workspace',
    input: z.object({ command: z.string() }),
    risk: 'execute',
    async execute(input) {
      const { command } = input as { command: string };
      commands.push(command);
      if (/^npm\b/.test(command))
        return { content: `${NPM_FAILURE}\nexit code 1`, isError: true, effects: { command } };
      if (command === 'pnpm test') return { content: '42 passing\nexit code 0', effects: { command } };
      return { content: `unknown command: ${command}`, isError: true, effects: { command } };
    },
  };
}

/**
 * The scripted model, decided per request from what the request contains: the agent uses whatever its
 * prompt tells it about running tests, and the reflection step reports the npm failure it saw.
 */
function decide(body: any): LlmTurn {
  const messages: any[] = body.messages ?? [];
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  const conversation = JSON.stringify(messages.filter((m) => m.role !== 'system'));
  if (system.includes('reflection step of Forge')) {
    const sawFailure = conversation.includes('npm is not supported');
    const learning = {
      type: 'procedural',
      content: LEARNING,
      context: 'running the test suite',
      confidence: 0.9,
      tags: ['tests', 'pnpm'],
    };
    return { text: sawFailure ? `Learned:\n\`\`\`json\n${JSON.stringify([learning])}\n\`\`\`` : '[]' };
  }
  const last = messages[messages.length - 1];
  if (last?.role === 'tool' && String(last.content).includes('passing')) {
    return { toolCalls: [{ name: 'task_completion', args: { result: 'All tests pass.' } }] };
  }
  if (last?.role === 'tool' && String(last.content).includes('not supported')) {
    return {
      toolCalls: [
        {
          name: 'ask_question',
          args: { question: 'npm test fails: npm is not supported here. How should I run the tests?' },
        },
      ],
    };
  }
  const command = system.includes('pnpm test') ? 'pnpm test' : 'npm test';
  return { text: 'Running the tests.', toolCalls: [{ name: 'execute_command', args: { command } }] };
}

/** A fetch that scripts the server's next turn from the request body; serialized so turns cannot cross. */
function conditionalFetch(srv: LlmServer): typeof fetch {
  let chain: Promise<unknown> = Promise.resolve();
  return (input, init) => {
    const next = chain.then(() => {
      srv.enqueue(decide(JSON.parse(String(init?.body ?? '{}'))));
      return fetch(input, init); // resolves on response headers: the server has taken its turn by then
    });
    chain = next.catch(() => undefined);
    return next;
  };
}

describe('memory/effect: a learning from run 1 changes run 2 (real loop, real SDK, loopback server)', () => {
  let srv: LlmServer;
  let dir: string;

  beforeEach(async () => {
    srv = await startLlmServer();
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-effect-'));
  });
  afterEach(async () => {
    await srv.close();
    await fsp.rm(dir, { recursive: true, force: true });
  });

  async function newAgent(commands: string[], events: AgentEvent[]): Promise<{ agent: Agent; memory: ForgeMemory }> {
    const memory = await openForgeMemory({
      io: new NodeMemoryFileIO(),
      workspaceRoot: dir,
      workspaceFs: new NodeWorkspaceFs([dir]),
      reflection: { budgetUsd: 0.05 },
    });
    const model = createModel({
      provider: 'openai',
      model: 'gpt-4o',
      apiKey: 'test-key',
      baseUrl: srv.openaiBaseUrl,
      fetch: conditionalFetch(srv),
    });
    const agent = new Agent({ model, tools: [commandTool(commands)], approver: approveAll, memory });
    agent.on((e) => events.push(e));
    return { agent, memory };
  }

  it('stores the lesson, recalls it into the next prompt, and the model follows it', async () => {
    // Run 1: npm fails, the agent escalates, reflection records the lesson.
    const commands1: string[] = [];
    const events1: AgentEvent[] = [];
    const run1 = await newAgent(commands1, events1);
    const report1 = await run1.agent.send('Run the tests and tell me if they pass');
    assert.equal(report1.reason, 'asked');
    assert.deepEqual(commands1, ['npm test']);
    const firstAgentRequest = JSON.stringify(srv.requests[0].body);
    assert.ok(!firstAgentRequest.includes(LEARNING), 'nothing learned yet in run 1');
    const learned = events1.filter(
      (e): e is Extract<AgentEvent, { type: 'memory_learned' }> => e.type === 'memory_learned',
    );
    assert.ok(
      learned.some((e) => e.memories.some((m) => m.content === LEARNING)),
      'memory_learned event emitted',
    );

    const file = await fsp.readFile(path.join(dir, WORKSPACE_MEMORY_FILE), 'utf8');
    const lines = file
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 1, 'tool-error and run-end reflections merged into one memory');
    assert.equal(lines[0].content, LEARNING);

    // Run 2: a fresh Agent and a freshly opened store over the same file.
    srv.requests.length = 0;
    const commands2: string[] = [];
    const events2: AgentEvent[] = [];
    const run2 = await newAgent(commands2, events2);
    const report2 = await run2.agent.send('Run the tests and tell me if they pass');

    const agentRequests = srv.requests.filter((r) => !JSON.stringify(r.body).includes('reflection step of Forge'));
    const systemText = agentRequests[0].body.messages.find((m: any) => m.role === 'system').content as string;
    assert.ok(systemText.includes(LEARNING), `the learning is in run 2's system prompt:\n${systemText}`);
    const recalled = events2.find(
      (e): e is Extract<AgentEvent, { type: 'memory_recalled' }> => e.type === 'memory_recalled',
    );
    assert.deepEqual(
      recalled?.memories.map((m) => m.content),
      [LEARNING],
    );
    assert.deepEqual(commands2, ['pnpm test'], 'the model followed the learning');
    assert.equal(report2.reason, 'done');

    const [stored] = await run2.memory.list();
    assert.ok(stored.accessCount >= 1 && stored.lastUsedAt, 'recall updated usage');
  });
});
