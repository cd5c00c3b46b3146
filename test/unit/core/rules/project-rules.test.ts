// Project rules: discovery, nested AGENTS.md read once when a tool touches a folder, caps, and the prompt layer.
import * as assert from 'node:assert/strict';
import { buildSystemLayers, prefixLayers } from '../../../../src/core/context/prompt';
import { getMode } from '../../../../src/core/modes';
import {
  discoverBaseRules,
  findOtherAgentRules,
  pathsInArgs,
  renderRules,
  RULE_FILE_CAP,
  TaskRules,
} from '../../../../src/core/rules/project-rules';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';

describe('project rules', () => {
  it('reads AGENTS.md and .forge/rules/*.md in a stable order', async () => {
    const fs = new MemoryFs(['/ws'], {
      '/ws/AGENTS.md': 'Use tabs.',
      '/ws/.forge/rules/b.md': 'Rule B',
      '/ws/.forge/rules/a.md': 'Rule A',
      '/ws/.forge/rules/x.json': '{}',
    });
    const rules = await discoverBaseRules(fs);
    assert.deepEqual(
      rules.map((r) => r.display),
      ['AGENTS.md', '.forge/rules/a.md', '.forge/rules/b.md'],
    );
    const text = renderRules(rules);
    assert.ok(text.indexOf('Use tabs.') < text.indexOf('Rule A') && text.indexOf('Rule A') < text.indexOf('Rule B'));
  });

  it('caps a huge rule file and the total', async () => {
    const fs = new MemoryFs(['/ws'], {
      '/ws/AGENTS.md': 'a'.repeat(RULE_FILE_CAP * 2),
      '/ws/.forge/rules/1.md': 'b'.repeat(RULE_FILE_CAP),
      '/ws/.forge/rules/2.md': 'c'.repeat(RULE_FILE_CAP),
      '/ws/.forge/rules/3.md': 'd'.repeat(100),
    });
    const rules = await discoverBaseRules(fs);
    assert.equal(rules[0]!.truncated, true);
    assert.equal(rules[0]!.text.length, RULE_FILE_CAP);
    const text = renderRules(rules, 30_000);
    assert.ok(text.length <= 30_500, String(text.length));
    assert.match(text, /Rules left out to save space: \.forge\/rules\/2\.md/);
  });

  it("offers other agents' rule files only when there is no AGENTS.md, and imports them when allowed", async () => {
    const fs = new MemoryFs(['/ws'], {
      '/ws/CLAUDE.md': 'Claude rule',
      '/ws/.clinerules/one.md': 'Cline rule',
      '/ws/.github/copilot-instructions.md': 'Copilot rule',
    });
    assert.deepEqual(await findOtherAgentRules(fs), [
      '/ws/CLAUDE.md',
      '/ws/.clinerules',
      '/ws/.github/copilot-instructions.md',
    ]);
    assert.equal((await discoverBaseRules(fs)).length, 0, 'not used without consent');
    const imported = await discoverBaseRules(fs, { importOthers: true });
    assert.deepEqual(
      imported.map((r) => r.display),
      ['CLAUDE.md', '.clinerules/one.md', '.github/copilot-instructions.md'],
    );
    const withAgents = new MemoryFs(['/ws'], { '/ws/AGENTS.md': 'x', '/ws/CLAUDE.md': 'y' });
    assert.deepEqual(await findOtherAgentRules(withAgents), []);
  });

  it('reads a nested AGENTS.md once, when a tool first touches its folder', async () => {
    const fs = new MemoryFs(['/ws'], {
      '/ws/AGENTS.md': 'root',
      '/ws/pkg/api/AGENTS.md': 'api rules',
      '/ws/pkg/api/x.ts': '',
      '/ws/pkg/AGENTS.md': 'pkg rules',
      '/ws/other/y.ts': '',
    });
    const base = await discoverBaseRules(fs);
    const task = new TaskRules(fs, () => base);
    assert.equal(await task.touch('other/y.ts'), false);
    assert.equal(await task.touch('pkg/api/x.ts'), true);
    assert.deepEqual(
      task.sources().map((s) => s.display),
      ['AGENTS.md', 'pkg/AGENTS.md', 'pkg/api/AGENTS.md'],
    );
    assert.equal(await task.touch('/ws/pkg/api/x.ts'), false, 'once per folder');
    assert.equal(await task.touch('/elsewhere/AGENTS.md'), false, 'outside the workspace');
    assert.match(task.text(), /## pkg\/api\/AGENTS.md \(applies under pkg\/api\/\)\napi rules/);
  });

  it('sits in the stable prefix after the tool rules, before memory', () => {
    const layers = buildSystemLayers({
      mode: getMode('agent'),
      rulesText: 'Project rules: X',
      memoryText: 'mem',
      iteration: 1,
      maxIterations: 10,
      warnRatio: 0.8,
    });
    assert.deepEqual(
      prefixLayers(layers).map((l) => l.id),
      ['role', 'tool-rules', 'project-rules', 'memory'],
    );
    assert.equal(layers.find((l) => l.id === 'project-rules')!.stable, true);
  });

  it('finds the paths in tool arguments', () => {
    assert.deepEqual(pathsInArgs({ path: 'a', paths: ['b', 3], cwd: 'c' }), ['a', 'c', 'b']);
    assert.deepEqual(pathsInArgs('x'), []);
  });

  it('reaches the model through the agent config, every step', async () => {
    let rules = 'Project rules: always say please';
    const firstStep = () => {
      rules += '\n## sub/AGENTS.md\nnested';
      return callsTurn(['read_file', { path: 'a' }]);
    };
    const h = harness([firstStep, doneTurn()], { config: { projectRules: () => rules } });
    const first = h.model.requests;
    await h.agent.send('go');
    assert.ok(!first[0]!.system.some((l) => l.text.includes('nested')));
    assert.ok(first[0]!.system.some((l) => l.id === 'project-rules' && l.text.includes('please')));
    assert.ok(first[1]!.system.some((l) => l.id === 'project-rules' && l.text.includes('nested')));
  });
});
