// Background tasks in git worktrees inside a real VS Code: two tasks run at once on the scripted model, each
// on its own forge/* branch, the workspace untouched until both are reviewed and merged back.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { allTabs, closeAllEditors, llm, waitFor, workspaceRoot, wsPath } from '../helpers';
import { forge, type ForgeApi } from './forge-api';

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
    cwd: workspaceRoot(),
    encoding: 'utf8',
  });
const write = (id: string, path: string, content: string, delayMs = 0) => ({
  delayMs,
  toolCalls: [{ id, name: 'write_file', args: { path, content } }],
});
const done = (id: string) => ({ toolCalls: [{ id, name: 'task_completion', args: { result: 'written' } }] });

describe('Forge background tasks in parallel git worktrees', function () {
  this.timeout(120_000);
  let api: ForgeApi;
  let madeRepo = false;

  before(async () => {
    api = await forge();
    if (!fs.existsSync(wsPath('.git'))) {
      git('init', '-q', '-b', 'main');
      madeRepo = true;
    }
    git('add', '-A');
    git('commit', '-qm', 'before the background tasks', '--allow-empty');
  });

  after(async () => {
    await closeAllEditors();
    for (const f of ['par-a.txt', 'par-b.txt']) fs.rmSync(wsPath(f), { force: true });
    if (madeRepo) fs.rmSync(wsPath('.git'), { recursive: true, force: true });
  });

  it('runs two tasks at once in their own worktrees, then reviews and merges both back', async () => {
    const ui = (api.testApi as any).parallel;
    await llm.reset();
    // Both first requests arrive while the first answer is still delayed: each task gets one write.
    await llm.script([
      write('w-a', 'par-a.txt', 'from task A\n', 1500),
      write('w-b', 'par-b.txt', 'from task B\n', 1500),
      done('d-1'),
      done('d-2'),
    ]);
    const first = await ui.startCommand('background task one');
    const second = await ui.startCommand('background task two');
    assert.ok(first && second, 'both tasks started (the workspace is a git repository)');
    const par = await ui.tasks();
    await waitFor(
      () => par.list().filter((t: any) => t.status === 'running').length === 2 || undefined,
      'both tasks running at once',
      20_000,
    );
    await par.whenIdle();

    const tasks = [par.get(first.id), par.get(second.id)];
    for (const t of tasks) assert.strictEqual(t.status, 'ready', `${t.title}: ${t.error ?? t.report?.detail}`);
    assert.deepStrictEqual(tasks.map((t: any) => t.worktree.branch).sort(), [
      'forge/background-task-one',
      'forge/background-task-two',
    ]);
    const changed = tasks.flatMap((t: any) => t.changes.map((c: any) => c.path)).sort();
    assert.deepStrictEqual(changed, ['par-a.txt', 'par-b.txt'], 'each task wrote its own file');
    assert.ok(
      !fs.existsSync(wsPath('par-a.txt')) && !fs.existsSync(wsPath('par-b.txt')),
      'the workspace is untouched while tasks run',
    );

    // The Background Tasks view lists them; its item commands review and merge.
    await vscode.commands.executeCommand('forge.backgroundTasks.focus');
    await vscode.commands.executeCommand('forge.parallel.review', { task: tasks[0] });
    await waitFor(() => allTabs().find((t) => t.label.includes('background task one')), 'the multi-file diff editor');

    await vscode.commands.executeCommand('forge.parallel.merge', { task: tasks[0] });
    await ui.act(tasks[1], 'Merge Branch');
    assert.strictEqual(fs.readFileSync(wsPath('par-a.txt'), 'utf8'), 'from task A\n');
    assert.strictEqual(fs.readFileSync(wsPath('par-b.txt'), 'utf8'), 'from task B\n');
    assert.deepStrictEqual(
      par
        .list()
        .filter((t: any) => [first.id, second.id].includes(t.id))
        .map((t: any) => t.status),
      ['merged', 'merged'],
    );
    assert.match(git('log', '--oneline', '-3'), /Merge forge\/background-task-/);
    assert.ok(
      vscode.workspace.getConfiguration('forge').get('parallel.maxTasks') === 2,
      'the setting is contributed with its default',
    );
  });
});
