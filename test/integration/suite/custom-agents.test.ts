// The team's custom agents and skills in a real VS Code: agent and skill files written into the workspace reach
// the panel's mode switch (the file watcher, or the re-read when a task starts), the mode is picked as the webview
// picks it, and the run that follows carries the agent's prompt and the skill index to the loopback model.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import { llm, waitFor, wsPath } from '../helpers';
import { forge, freshTask, type ForgeApi } from './forge-api';

const TEST_FIXER = `---
name: test-fixer
description: Runs the failing tests and fixes the code under test. Use proactively after edits break tests.
tools: Read, Grep, Glob, Edit, Bash
---
You fix failing tests. Never weaken an assertion; change the code under test. Report what you changed.
`;

const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from merged PRs since the last tag. Use when asked for a changelog or release notes.
---
1. Find the last tag; list commits since it.
`;

let seq = 0;
const rid = () => `ca-${Date.now().toString(36)}-${++seq}`;

describe('custom agents in the mode picker (real VS Code)', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  let conn: { receive(m: unknown): void; dispose(): void };
  const got: any[] = [];

  before(async () => {
    api = await forge();
    conn = api.testApi.panel.bridge.connect((m: unknown) => void got.push(m));
    conn.receive({ type: 'ready' });
    fs.mkdirSync(wsPath('.claude', 'agents'), { recursive: true });
    fs.mkdirSync(wsPath('.claude', 'skills', 'release-notes'), { recursive: true });
    fs.writeFileSync(wsPath('.claude', 'agents', 'test-fixer.md'), TEST_FIXER);
    fs.writeFileSync(wsPath('.claude', 'skills', 'release-notes', 'SKILL.md'), RELEASE_NOTES);
  });
  after(() => {
    conn?.dispose();
    api?.testApi.manager.current.setMode('agent');
    fs.rmSync(wsPath('.claude'), { recursive: true, force: true });
  });

  it('an agent file appears beside the built-in modes; picking it runs the task with its prompt', async () => {
    const team = (api.testApi as ForgeApi['testApi'] & { ecosystem: any }).ecosystem.team;
    await waitFor(() => team.team.agents.some((a: any) => a.name === 'test-fixer'), 'the watcher', 30_000).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}; agents ${JSON.stringify(team.team.agents)}, problems ${JSON.stringify(team.team.problems)}, modes ${JSON.stringify(team.modes())}`,
        );
      },
    );
    const snapshot = await waitFor(
      () =>
        got
          .filter((m) => m.type === 'state')
          .reverse()
          .find((m) => m.snapshot.modes?.some((x: any) => x.id === 'test-fixer')),
      'a snapshot whose modes include the custom agent',
      30_000,
    );
    assert.deepStrictEqual(
      snapshot.snapshot.modes.map((m: any) => m.id),
      ['agent', 'plan', 'implement', 'review', 'test', 'deploy', 'test-fixer'],
    );
    // Each mode says what it does in the mode switch: the built-ins' lines and the agent's description.
    const described = Object.fromEntries(snapshot.snapshot.modes.map((m: any) => [m.id, m.description]));
    assert.match(described.plan, /changes no files/);
    assert.match(described['test-fixer'], /^Runs the failing tests and fixes the code under test/);
    await freshTask(api, [{ toolCalls: [{ id: 'c1', name: 'task_completion', args: { result: 'fixed' } }] }]);
    conn.receive({ type: 'set_mode', mode: 'test-fixer' });
    await waitFor(() => api.testApi.manager.current.mode === 'test-fixer', 'the task to be in test-fixer mode');
    conn.receive({ type: 'set_mode', mode: 'no-such-agent' });
    conn.receive({ type: 'send_message', requestId: rid(), text: 'the tests broke' });
    await waitFor(async () => (await llm.requests()).length >= 1, 'the model request');
    await waitFor(() => !api.testApi.manager.current.running, 'the run to end');
    assert.strictEqual(api.testApi.manager.current.mode, 'test-fixer', 'an unknown mode name changes nothing');
    const sent = JSON.stringify((await llm.requests())[0].body.messages);
    assert.match(sent, /Mode: test-fixer\. Custom agent test-fixer/);
    assert.match(sent, /Never weaken an assertion/);
    assert.match(sent, /- release-notes: Draft release notes from merged PRs/);
    const eco = await waitFor(
      () =>
        got
          .filter((m) => m.type === 'ecosystem')
          .reverse()
          .find((m) => m.ecosystem.skills?.length),
      'the ecosystem strip with the skill',
    );
    assert.deepStrictEqual(eco.ecosystem.skills[0].name, 'release-notes');
  });
});
