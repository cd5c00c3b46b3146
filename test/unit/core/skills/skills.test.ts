// Skills and custom agents from the files teams keep (fixtures written as the anchors document them:
// agentskills.io SKILL.md, Claude Code .claude/agents, VS Code .github/agents), and hostile files: huge, binary,
// symlinked out, FIFOs, bad frontmatter, too many, name clashes, paths out of a skill's folder.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverCustomAgents, parseCustomAgent } from '../../../../src/core/modes/custom-agents';
import { isToolAllowedInMode, narrowMode, MODES } from '../../../../src/core/modes';
import { listField, parseFrontmatter } from '../../../../src/core/skills/frontmatter';
import { discoverSkills, skillIndexText, SKILL_BODY_CAP } from '../../../../src/core/skills/skills';
import { createUseSkillTool, SkillSession } from '../../../../src/core/skills/use-skill';
import { mapToolNames } from '../../../../src/core/skills/tool-names';
import { NodeWorkspaceFs } from '../../../../src/node';
import { TeamFiles } from '../../../../src/node/surface/team-files';

const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from merged PRs since the last tag. Use when asked for a changelog or release notes.
allowed-tools: Bash(git log *) Bash(git describe *)
---
1. Find the last tag (\`git describe --tags --abbrev=0\`); list commits since it.
2. Group them into features and fixes using [the template](references/TEMPLATE.md).
`;

const TEST_FIXER = `---
name: test-fixer
description: Runs the failing tests and fixes the code under test. Use proactively after edits break tests.
tools: Read, Grep, Glob, Edit, Bash
---
You fix failing tests. Never weaken an assertion; change the code under test. Report what you changed.
`;

const REVIEWER = `---
description: Reviews a change for bugs and risky patterns
tools: ['read', 'search']
model: ['gpt-4.1-mini', 'gpt-4.1']
handoffs:
  - label: Fix it
    agent: test-fixer
    prompt: Fix what the review found.
---
Review the change. Report problems with file and line; do not edit files.
`;

async function tempDir(name: string): Promise<string> {
  return fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), `forge-${name}-`)));
}

async function write(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.writeFile(abs, content);
  }
}

const ctx = () => ({ signal: new AbortController().signal, taskId: 't', toolCallId: 'c' });

describe('skills and custom agents: the files teams keep', () => {
  let ws: string;
  let home: string;
  let outside: string;
  beforeEach(async () => {
    ws = await tempDir('ws');
    home = await tempDir('home');
    outside = await tempDir('outside');
  });
  afterEach(async () => {
    for (const d of [ws, home, outside]) await fsp.rm(d, { recursive: true, force: true });
  });

  it('frontmatter: YAML lists or comma/space strings; Bash(git log *) stays one entry; a body without a fence', () => {
    const fm = parseFrontmatter(RELEASE_NOTES);
    assert.ok(fm.ok);
    assert.deepEqual(listField(fm.data, 'allowed-tools'), ['Bash(git log *)', 'Bash(git describe *)']);
    assert.deepEqual(listField({ tools: 'Read, Grep, Glob' }, 'tools'), ['Read', 'Grep', 'Glob']);
    assert.deepEqual(listField({ tools: ['read', 'search'] }, 'tools'), ['read', 'search']);
    const plain = parseFrontmatter('# Just text\n');
    assert.ok(plain.ok && plain.body === '# Just text\n');
    const bad = parseFrontmatter('---\nname: [unclosed\n---\nbody');
    assert.ok(!bad.ok && /not valid YAML/.test(bad.reason));
    const open = parseFrontmatter('---\nname: x\nbody without a closing fence');
    assert.ok(!open.ok && /no closing ---/.test(open.reason));
  });

  it('tool names: Claude Code names, VS Code aliases, MCP servers; unknown ones are set aside', () => {
    const m = mapToolNames([
      'Read',
      'Grep',
      'Glob',
      'Edit',
      'Bash(git log *)',
      'search',
      'github/*',
      'mcp__db__query',
      'NotebookEdit',
    ]);
    assert.deepEqual(m.names.sort(), [
      'apply_diff',
      'execute_command',
      'list_files',
      'mcp__db__query',
      'mcp__github__*',
      'read_file',
      'search_files',
      'write_file',
    ]);
    assert.deepEqual(m.unknown, ['NotebookEdit']);
  });

  it('finds skills in the four workspace places and the home, user first; the index has names and descriptions only', async () => {
    await write(ws, {
      '.claude/skills/release-notes/SKILL.md': RELEASE_NOTES,
      '.claude/skills/release-notes/references/TEMPLATE.md': '## Features\n## Fixes\n',
      '.agents/skills/pdf/SKILL.md': '---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse scripts/fill.py.',
      '.github/skills/deploy/SKILL.md': '---\nname: deploy\n---\nShip it to staging, then production.\n',
      '.forge/skills/lint/SKILL.md': '---\nname: lint\ndescription: Lint the code.\n---\nRun npm run lint.',
    });
    await write(home, {
      '.claude/skills/pdf/SKILL.md': '---\nname: pdf\ndescription: My own PDF skill.\n---\nMine.',
    });
    const fs = new NodeWorkspaceFs([ws]);
    const { skills, problems } = await discoverSkills(fs, { homeDir: home });
    assert.deepEqual(
      skills.map((s) => `${s.name}@${s.display}`),
      [
        'pdf@~/.claude/skills/pdf/SKILL.md',
        'lint@.forge/skills/lint/SKILL.md',
        'release-notes@.claude/skills/release-notes/SKILL.md',
        'deploy@.github/skills/deploy/SKILL.md',
      ],
    );
    assert.equal(skills.find((s) => s.name === 'deploy')!.description, 'Ship it to staging, then production.');
    assert.deepEqual(skills.find((s) => s.name === 'release-notes')!.allowedTools, ['execute_command']);
    assert.deepEqual(
      problems.map((p) => p.display),
      ['.agents/skills/pdf/SKILL.md'],
    );
    assert.match(problems[0]!.reason, /already in ~\/\.claude\/skills\/pdf\/SKILL\.md/);
    const index = skillIndexText(skills);
    assert.match(index, /- release-notes: Draft release notes from merged PRs/);
    assert.doesNotMatch(index, /git describe --tags/, 'the body is not in the index');
  });

  it('use_skill returns the body and the file list, reads a file, and refuses paths out of the folder and secrets', async () => {
    await write(ws, {
      '.claude/skills/release-notes/SKILL.md': RELEASE_NOTES,
      '.claude/skills/release-notes/references/TEMPLATE.md': '## Features\n## Fixes\n',
      '.claude/skills/release-notes/.env': 'TOKEN=1',
      'secret.txt': 'outside the skill',
    });
    const { skills } = await discoverSkills(new NodeWorkspaceFs([ws]));
    const session = new SkillSession(() => skills);
    const tool = createUseSkillTool(session);
    const body = await tool.execute({ name: 'release-notes' }, ctx());
    assert.ok(!body.isError, body.content);
    assert.match(body.content, /git describe --tags --abbrev=0/);
    assert.match(body.content, /- references\/TEMPLATE\.md/);
    assert.doesNotMatch(body.content, /\.env/);
    assert.match(body.content, /only these tools run: execute_command, use_skill, update_plan/);
    assert.deepEqual(session.narrow(), ['execute_command', 'use_skill', 'update_plan']);
    assert.deepEqual([...session.loaded], ['release-notes']);
    const file = await tool.execute({ name: 'release-notes', file: 'references/TEMPLATE.md' }, ctx());
    assert.match(file.content, /## Features/);
    const escape = await tool.execute({ name: 'release-notes', file: '../../../secret.txt' }, ctx());
    assert.ok(escape.isError && /not a file of the skill/.test(escape.content));
    const secret = await tool.execute({ name: 'release-notes', file: '.env' }, ctx());
    assert.ok(secret.isError && /secret/.test(secret.content), secret.content);
    const unknown = await tool.execute({ name: 'nope' }, ctx());
    assert.ok(unknown.isError && /Skills: release-notes/.test(unknown.content));
    session.onEvent({ type: 'run_start', runId: 'r2', taskId: 't', mode: 'agent', maxIterations: 5, userMessage: 'x' });
    assert.equal(session.narrow(), undefined, 'a new run starts without the narrowing');
  });

  it('allowed-tools narrows and never widens: a read-only mode stays read-only, other tools are refused', () => {
    const narrowed = narrowMode(MODES.agent, ['execute_command', 'use_skill']);
    assert.ok(isToolAllowedInMode(narrowed, { name: 'execute_command', risk: 'execute' }));
    assert.ok(!isToolAllowedInMode(narrowed, { name: 'write_file', risk: 'write' }));
    assert.ok(
      isToolAllowedInMode(narrowed, { name: 'task_completion', risk: 'read', loopControl: 'complete' } as never),
    );
    const plan = narrowMode(MODES.plan, ['execute_command', 'read_file']);
    assert.ok(!isToolAllowedInMode(plan, { name: 'execute_command', risk: 'execute' }), 'plan mode gains nothing');
    assert.ok(isToolAllowedInMode(plan, { name: 'read_file', risk: 'read' }));
  });

  it('hostile skill files: huge, binary, a FIFO, linked out of the workspace, bad frontmatter, bad names, too many', async function () {
    this.timeout(30_000);
    const files: Record<string, string | Uint8Array> = {
      '.claude/skills/huge/SKILL.md': `---\nname: huge\ndescription: A huge one.\n---\n${'x'.repeat(1_000_000)}`,
      '.claude/skills/binary/SKILL.md': new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0, 1, 2, 3]),
      '.claude/skills/broken/SKILL.md': '---\ndescription: [oops\n---\nbody',
      '.claude/skills/Bad_Name/SKILL.md': '---\ndescription: fine\n---\nbody',
      '.claude/skills/nodesc/SKILL.md': '---\nname: nodesc\n---\n',
    };
    for (let i = 0; i < 110; i++)
      files[`.github/skills/s${String(i).padStart(3, '0')}/SKILL.md`] =
        `---\nname: s${String(i).padStart(3, '0')}\ndescription: skill ${i}\n---\nbody ${i}`;
    await write(ws, files);
    await write(outside, { 'stolen/SKILL.md': '---\nname: stolen\ndescription: from outside\n---\nexfiltrate' });
    await fsp.symlink(path.join(outside, 'stolen'), path.join(ws, '.claude/skills/stolen'));
    await fsp.mkdir(path.join(ws, '.claude/skills/fifo'));
    execFileSync('mkfifo', [path.join(ws, '.claude/skills/fifo/SKILL.md')]);
    const fs = new NodeWorkspaceFs([ws]);
    const started = Date.now();
    const { skills, problems } = await discoverSkills(fs);
    const took = Date.now() - started;
    assert.ok(took < 10_000, `a FIFO does not hang discovery (${took} ms)`);
    const reasons = Object.fromEntries(problems.map((p) => [p.display, p.reason]));
    assert.match(reasons['.claude/skills/binary/SKILL.md']!, /binary/);
    assert.match(reasons['.claude/skills/broken/SKILL.md']!, /not valid YAML/);
    assert.match(reasons['.claude/skills/Bad_Name/SKILL.md']!, /not a skill name/);
    assert.match(reasons['.claude/skills/nodesc/SKILL.md']!, /no description/);
    assert.match(reasons['.claude/skills/fifo/SKILL.md']!, /not a regular file/);
    assert.match(reasons['.claude/skills/stolen']!, /symbolic link/);
    assert.match(reasons.skills!, /11 more skills left out: at most 100/);
    assert.equal(skills.length, 100);
    assert.ok(!skills.some((s) => s.name === 'stolen'));
    const huge = skills.find((s) => s.name === 'huge')!;
    const body = await createUseSkillTool(new SkillSession(() => skills)).execute({ name: 'huge' }, ctx());
    assert.ok(body.content.length < SKILL_BODY_CAP + 2_000, `${body.content.length} chars`);
    assert.match(body.content, /cut at 24000 characters/);
    assert.ok(huge);
    assert.ok(skillIndexText(skills).length <= 8_200, 'the index stays within its cap');
  });

  it('a home skill folder is confined to itself: a link out of it is refused', async () => {
    await write(home, { '.agents/skills/mine/SKILL.md': '---\nname: mine\ndescription: mine\n---\nbody' });
    await write(outside, { 'ssh/SKILL.md': '---\nname: ssh\ndescription: x\n---\nbody', 'notes.md': 'private' });
    await fsp.symlink(path.join(outside, 'ssh'), path.join(home, '.agents/skills/ssh'));
    await fsp.symlink(path.join(outside, 'notes.md'), path.join(home, '.agents/skills/mine/notes.md'));
    const { skills, problems } = await discoverSkills(new NodeWorkspaceFs([ws]), { homeDir: home });
    assert.deepEqual(
      skills.map((s) => s.name),
      ['mine'],
    );
    assert.match(problems.find((p) => p.display === '~/.agents/skills/ssh')?.reason ?? '', /symbolic link/);
    const tool = createUseSkillTool(new SkillSession(() => skills));
    const r = await tool.execute({ name: 'mine', file: 'notes.md' }, ctx());
    assert.ok(r.isError && /symbolic link/.test(r.content), r.content);
  });

  it('custom agents in the three formats; unknown keys ignored; invalid files reported with the reason', async () => {
    await write(ws, {
      '.claude/agents/test-fixer.md': TEST_FIXER,
      '.github/agents/reviewer.agent.md': REVIEWER,
      '.forge/agents/docs.md':
        '---\nname: docs\ndescription: Writes docs\nmodel: haiku\ncolor: blue\n---\nWrite the docs.',
      '.claude/agents/empty.md': '---\nname: empty\ndescription: nothing\n---\n',
      '.claude/agents/plan.md': '---\nname: plan\n---\nI replace plan mode.',
      '.claude/agents/bad.md': '---\nname: "x\n---\nbody',
      '.claude/agents/huge.md': `---\nname: huge\n---\n${'y'.repeat(40_000)}`,
    });
    const { agents, problems } = await discoverCustomAgents(new NodeWorkspaceFs([ws]));
    assert.deepEqual(
      agents.map((a) => a.name),
      ['docs', 'reviewer', 'test-fixer'],
    );
    const fixer = agents.find((a) => a.name === 'test-fixer')!;
    assert.deepEqual([...fixer.allow!].sort(), [
      'apply_diff',
      'execute_command',
      'list_files',
      'read_file',
      'search_files',
      'write_file',
    ]);
    assert.match(fixer.prompt, /Never weaken an assertion/);
    assert.equal(
      fixer.description,
      'Runs the failing tests and fixes the code under test. Use proactively after edits break tests.',
    );
    const reviewer = agents.find((a) => a.name === 'reviewer')!;
    assert.equal(reviewer.model, 'gpt-4.1-mini');
    assert.deepEqual([...reviewer.allow!].sort(), ['list_files', 'read_file', 'search_files']);
    assert.ok(!isToolAllowedInMode(reviewer, { name: 'write_file', risk: 'write' }));
    assert.equal(agents.find((a) => a.name === 'docs')!.allow, undefined, 'no tools key: every tool of the mode');
    const reasons = Object.fromEntries(problems.map((p) => [p.display, p.reason]));
    assert.match(reasons['.claude/agents/empty.md']!, /no prompt/);
    assert.match(reasons['.claude/agents/plan.md']!, /built-in mode/);
    assert.match(reasons['.claude/agents/bad.md']!, /not valid YAML/);
    assert.match(reasons['.claude/agents/huge.md']!, /40\d\d\d characters, over the 30000/);
  });

  it('an agent file with tools: [] gets no tools but the loop-control ones', () => {
    const a = parseCustomAgent('---\nname: talker\ntools: []\n---\nJust talk.', '/x/talker.md', 'talker.md');
    assert.ok('allow' in a);
    assert.deepEqual(a.allow, []);
    assert.ok(!isToolAllowedInMode(a, { name: 'read_file', risk: 'read' }));
    assert.ok(isToolAllowedInMode(a, { name: 'converse', risk: 'read' }));
  });

  it('TeamFiles reports each problem once across reloads', async () => {
    await write(ws, {
      '.claude/agents/bad.md': '---\nname: [\n---\nbody',
      '.claude/skills/ok/SKILL.md': '---\nname: ok\ndescription: fine\n---\nbody',
    });
    const warned: string[] = [];
    const team = new TeamFiles(new NodeWorkspaceFs([ws]), { warn: (m) => warned.push(m) });
    await team.load();
    await team.load();
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(warned[0]!, /\.claude\/agents\/bad\.md is not used: its frontmatter is not valid YAML/);
    assert.deepEqual(
      team.skills.map((s) => s.name),
      ['ok'],
    );
  });
});
