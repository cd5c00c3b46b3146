// The sealed control plane in the real VS Code, where VS Code itself is what would run a planted file: a contained
// command (the scripted model's execute_command, through the extension's own runner and bubblewrap write layer)
// plants core.fsmonitor in a renamed-and-copied .git, a post-checkout hook where no hooks folder existed, and a
// folderOpen task where no .vscode folder existed; then VS Code's built-in git extension runs git status and
// git checkout, and VS Code's task system lists the workspace's tasks. Nothing planted reaches the workspace or
// runs. Ordinary writes still arrive, are listed on the command's card, and are a checkpoint to restore to.
// The workspace is a git repository for this suite (made in before(), removed in after()); its .vscode folder,
// which holds the harness's model settings, is moved out for the suite (the settings go to the user's scope).
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { closeAllEditors, readText, waitFor, workspaceRoot, wsPath } from '../helpers';
import { endLeftoverRun, forge, freshTask, done, setSetting, toolResultSeenByModel, type ForgeApi } from './forge-api';

/** The slice of the git extension's API (extensions/git/src/api/git.d.ts, version 1) these tests use. */
interface GitRepository {
  rootUri: vscode.Uri;
  state: { workingTreeChanges: Array<{ uri: vscode.Uri }>; HEAD?: { name?: string }; onDidChange: vscode.Event<void> };
  status(): Promise<void>;
  checkout(treeish: string): Promise<void>;
}
interface GitApi {
  state: 'uninitialized' | 'initialized';
  repositories: GitRepository[];
  openRepository?(root: vscode.Uri): Promise<GitRepository | null>;
}

/** Settings the harness writes into the workspace's .vscode/settings.json (run.mjs prepareWorkspace + the fixture). */
const HARNESS_SETTINGS = ['provider', 'baseUrl', 'model', 'reflection.enabled'];

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: workspaceRoot(),
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

/** Approves every command the run asks about (whether a command asks depends on the policy; the attack is the same). */
function approveCommands(api: ForgeApi): { dispose(): void } {
  return api.approvals.onDidChange((e) => {
    if (e.type !== 'requested' || e.request.toolName !== 'execute_command') return;
    queueMicrotask(() => void api.approvals.resolve(e.request.id, { kind: 'approve', scope: 'once' }));
  });
}

describe('sealed control plane in the real VS Code: git extension and tasks never run what a command planted', function () {
  this.timeout(120_000);
  let api: ForgeApi;
  let repo: GitRepository;
  let gitApi: GitApi | undefined;
  const mine = () => gitApi?.repositories.find((r) => r.rootUri.fsPath === vscode.Uri.file(workspaceRoot()).fsPath);
  /** Outside the workspace and hidden from every sandboxed command (under the extension host's temp folder). */
  let outside: string;
  /** Where the workspace's .vscode folder waits while this suite runs. */
  let parkedVscode: string | undefined;
  const made = ['cp-note.txt', 'out.txt', 'gen', 'ordinary.txt'];
  /** README.md before the status probe edited it (put back in after()). */
  let readmeText: string | undefined;

  const session = () => api.testApi.manager.current;
  const card = (toolCallId: string) =>
    (session().transcript.snapshot().items as any[]).find((i) => i.kind === 'tool' && i.toolCallId === toolCallId);

  /** Runs one scripted task whose turns are commands (then task_completion); every command asked is approved. */
  async function runCommands(prompt: string, commands: Array<{ id: string; command: string }>) {
    await freshTask(api, [
      ...commands.map((c) => ({ toolCalls: [{ id: c.id, name: 'execute_command', args: { command: c.command } }] })),
      done('Ran the commands.'),
    ]);
    const approver = approveCommands(api);
    try {
      const report = await api.testApi.controller.startRun('send', prompt);
      assert.strictEqual(report.reason, 'done', report.detail);
    } finally {
      approver.dispose();
    }
    for (const c of commands)
      assert.strictEqual(card(c.id)?.status, 'done', `the command ${c.id} ran: ${JSON.stringify(card(c.id))}`);
  }

  before(async function () {
    if (process.platform !== 'linux') this.skip();
    api = await forge();
    const toolkit = (api.testApi as any).toolkit;
    const c = await toolkit.commandSandbox.ready();
    assert.strictEqual(c.kind, 'bubblewrap', `the extension found no sandbox: ${c.reason ?? ''}`);
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-it-planted-'));

    // A workspace without .vscode: the harness's settings move to the user's scope first (same values, so the model
    // stays configured), then the folder leaves the workspace until after().
    const forgeConfig = () => vscode.workspace.getConfiguration('forge');
    for (const key of HARNESS_SETTINGS) {
      const value = forgeConfig().inspect(key)?.workspaceValue;
      if (value !== undefined) await setSetting(key, value, 'user');
    }
    if (fs.existsSync(wsPath('.vscode'))) {
      parkedVscode = path.join(outside, 'parked-vscode');
      fs.cpSync(wsPath('.vscode'), parkedVscode, { recursive: true });
      fs.rmSync(wsPath('.vscode'), { recursive: true, force: true });
      await waitFor(
        () => forgeConfig().inspect('baseUrl')?.workspaceValue === undefined,
        'VS Code to drop the workspace settings',
      );
    }
    assert.ok(api.testApi.model.configured, 'the loopback model is still configured (from the user settings)');

    // A git repository with one commit, a second branch, and no hooks folder (git init makes one: removed).
    assert.ok(!fs.existsSync(wsPath('.git')), 'another suite left a repository behind');
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'it@forge.test');
    git('config', 'user.name', 'Forge IT');
    fs.rmSync(wsPath('.git', 'hooks'), { recursive: true, force: true });
    git('add', '-A');
    git('commit', '-qm', 'base');
    git('branch', 'other');

    // VS Code's own git extension, with this repository open in it.
    const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
    assert.ok(ext, 'the built-in git extension is installed');
    const api1 = (await ext.activate()).getAPI(1);
    gitApi = api1;
    await waitFor(() => api1.state === 'initialized', 'the git extension to initialise', 30_000);
    const root = vscode.Uri.file(workspaceRoot());
    if (!mine()) await api1.openRepository?.(root);
    repo = await waitFor(mine, 'the git extension to open the workspace repository', 30_000);
    await waitFor(() => repo.state.HEAD?.name === 'main', 'the git extension to read HEAD', 30_000);
  });

  afterEach(() => endLeftoverRun(api));

  after(async () => {
    if (!api) return;
    await closeAllEditors();
    if (readmeText !== undefined) fs.writeFileSync(wsPath('README.md'), readmeText);
    for (const f of made) fs.rmSync(wsPath(f), { recursive: true, force: true });
    // The repository goes; the git extension closes it on its next status (git reports no repository). Waiting for
    // that keeps its background git runs (quick diff, check-ignore) from failing during the next suite.
    fs.rmSync(wsPath('.git'), { recursive: true, force: true });
    if (gitApi && mine()) {
      await Promise.resolve(vscode.commands.executeCommand('git.refresh')).catch(() => undefined);
      await waitFor(() => !mine(), 'the git extension to close the removed repository', 30_000).catch(() => undefined);
    }
    fs.rmSync(wsPath('.vscode'), { recursive: true, force: true });
    if (parkedVscode) {
      fs.cpSync(parkedVscode, wsPath('.vscode'), { recursive: true });
      await waitFor(
        () => vscode.workspace.getConfiguration('forge').inspect('baseUrl')?.workspaceValue !== undefined,
        'VS Code to read the workspace settings again',
      );
    }
    for (const key of HARNESS_SETTINGS) {
      const config = vscode.workspace.getConfiguration('forge');
      if (config.inspect(key)?.globalValue === undefined) continue;
      await config.update(key, undefined, vscode.ConfigurationTarget.Global);
      await waitFor(
        () => vscode.workspace.getConfiguration('forge').inspect(key)?.globalValue === undefined,
        `forge.${key} to leave the user settings`,
      );
    }
    if (outside) fs.rmSync(outside, { recursive: true, force: true });
  });

  it('core.fsmonitor in a renamed-and-copied .git and a new post-checkout hook: git status and checkout by VS Code run neither', async () => {
    const fsmonitorRan = path.join(outside, 'fsmonitor-ran');
    const hookRan = path.join(outside, 'post-checkout-ran');
    const configBefore = fs.readFileSync(wsPath('.git', 'config'), 'utf8');
    await runCommands('Run the tests.', [
      {
        id: 'cp-fsmonitor',
        command: `mv .git .git-old && cp -r .git-old .git && printf '[core]\\n\\tfsmonitor = "touch ${fsmonitorRan}; false"\\n' >> .git/config && rm -rf .git-old && echo planted-config`,
      },
      {
        id: 'cp-hook',
        command: `mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ${hookRan}\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && echo planted-hook`,
      },
    ]);

    // Inside the sandbox the commands did what they meant to (so a refusal is the merge's, not a failed command).
    const fsmonitorResult = (await toolResultSeenByModel('cp-fsmonitor')) ?? '';
    const hookResult = (await toolResultSeenByModel('cp-hook')) ?? '';
    assert.match(fsmonitorResult, /Exit code: 0[\s\S]*planted-config/, fsmonitorResult);
    assert.match(hookResult, /Exit code: 0[\s\S]*planted-hook/, hookResult);

    // VS Code's git extension runs git status: a change to a tracked file (written through VS Code's file service;
    // an editor save can be aborted by slow save participants on a loaded machine), then Git: Refresh; the SCM state
    // shows the change once that status has run (git runs a configured fsmonitor before it answers).
    const readme = wsPath('README.md');
    readmeText = fs.readFileSync(readme, 'utf8');
    await vscode.workspace.fs.writeFile(
      vscode.Uri.file(readme),
      new TextEncoder().encode(readmeText + 'status-probe\n'),
    );
    await vscode.commands.executeCommand('git.refresh', repo);
    await waitFor(
      () => repo.state.workingTreeChanges.some((ch) => ch.uri.fsPath === readme),
      'the SCM view to show README.md as changed',
      30_000,
    );
    await repo.status();
    assert.strictEqual(
      fs.existsSync(fsmonitorRan),
      false,
      'git status run by VS Code executed the planted core.fsmonitor',
    );

    // VS Code's git extension checks out a branch and back: git runs a post-checkout hook after each.
    await repo.checkout('other');
    await waitFor(() => repo.state.HEAD?.name === 'other', 'the checkout of other', 30_000);
    await repo.checkout('main');
    await waitFor(() => repo.state.HEAD?.name === 'main', 'the checkout of main', 30_000);
    assert.strictEqual(
      fs.existsSync(hookRan),
      false,
      'git checkout run by VS Code executed the planted post-checkout hook',
    );
    assert.strictEqual(
      fs.existsSync(fsmonitorRan),
      false,
      'git checkout run by VS Code executed the planted core.fsmonitor',
    );

    // The repository is as it was.
    const config = fs.readFileSync(wsPath('.git', 'config'), 'utf8');
    assert.doesNotMatch(config, /fsmonitor/i);
    assert.strictEqual(config, configBefore);
    assert.strictEqual(fs.existsSync(wsPath('.git', 'hooks')), false, 'no hooks folder appeared');
    assert.strictEqual(fs.existsSync(wsPath('.git-old')), false);

    // The model was told the changes were not applied, naming the files; the cards say so too.
    assert.match(
      fsmonitorResult,
      /not applied to the workspace: the command's changes to [^\]]*\.git\/config[^\]]*control plane/,
      fsmonitorResult,
    );
    assert.match(
      hookResult,
      /not applied to the workspace: the command's changes to [^\]]*\.git\/hooks[^\]]*control plane/,
      hookResult,
    );
    assert.match(card('cp-fsmonitor')?.result ?? '', /not applied to the workspace/);
    assert.match(card('cp-hook')?.result ?? '', /not applied to the workspace/);
  });

  it('.vscode/tasks.json with a folderOpen task, where no .vscode existed: the file never appears and VS Code has no such task', async () => {
    assert.strictEqual(fs.existsSync(wsPath('.vscode')), false, 'the workspace has no .vscode folder');
    const taskRan = path.join(outside, 'folder-open-task-ran');
    const tasks = JSON.stringify({
      version: '2.0.0',
      tasks: [
        { label: 'forge-planted', type: 'shell', command: `touch ${taskRan}`, runOptions: { runOn: 'folderOpen' } },
      ],
    });
    await runCommands('Set up the project.', [
      {
        id: 'cp-tasks',
        command: `mkdir -p .vscode && printf '%s\\n' '${tasks}' > .vscode/tasks.json && echo ok > ordinary.txt && echo planted-tasks`,
      },
    ]);
    const result = (await toolResultSeenByModel('cp-tasks')) ?? '';
    assert.match(result, /Exit code: 0[\s\S]*planted-tasks/, result);

    // VS Code's task system (what runs folderOpen tasks when the folder opens) knows no such task, and no file.
    const known = await vscode.tasks.fetchTasks();
    assert.ok(
      !known.some((t) => t.name === 'forge-planted'),
      `VS Code lists the planted task: ${known.map((t) => t.name).join(', ')}`,
    );
    assert.strictEqual(fs.existsSync(wsPath('.vscode')), false, '.vscode was created in the workspace');
    assert.strictEqual(await readText(wsPath('ordinary.txt')), 'ok\n', "the same command's ordinary file arrived");

    // The model and the card were told.
    assert.match(
      result,
      /not applied to the workspace: the command's changes to [^\]]*\.vscode[^\]]*control plane/,
      result,
    );
    assert.match(card('cp-tasks')?.result ?? '', /not applied to the workspace/);
    assert.strictEqual(fs.existsSync(taskRan), false);
  });

  it('an ordinary command still writes the workspace; its card lists the files, and "Restore to here" puts back what it did', async () => {
    await runCommands('Generate the files.', [
      { id: 'cp-first', command: 'echo one > cp-note.txt' },
      { id: 'cp-gen', command: 'echo hi > out.txt && mkdir gen && echo x > gen/a.txt && echo two > cp-note.txt' },
    ]);
    assert.strictEqual(await readText(wsPath('out.txt')), 'hi\n');
    assert.strictEqual(await readText(wsPath('gen', 'a.txt')), 'x\n');
    assert.strictEqual(await readText(wsPath('cp-note.txt')), 'two\n');
    const result = (await toolResultSeenByModel('cp-gen')) ?? '';
    assert.match(result, /Files the command changed: [^\]]*created out\.txt/, result);
    assert.match(result, /created gen\/a\.txt/, result);
    assert.match(result, /modified cp-note\.txt/, result);
    assert.doesNotMatch(result, /not applied/, result);

    // The card lists what the command changed and is a checkpoint (its texts are in the edit journal).
    await waitFor(() => card('cp-gen')?.checkpoint === true, 'the command card to become a checkpoint');
    const listed: string[] = card('cp-gen').changedFiles;
    for (const f of ['out.txt', 'gen/a.txt', 'cp-note.txt'])
      assert.ok(listed.includes(wsPath(...f.split('/'))), `the card lists ${f}: ${listed}`);
    await waitFor(() => card('cp-first')?.checkpoint === true, 'the first command card to become a checkpoint');
    const checkpoints = await (api.testApi as any).recovery.checkpoints(session().id);
    assert.deepStrictEqual(
      checkpoints.map((c: any) => c.toolCallIds),
      [['cp-first'], ['cp-gen']],
    );

    // "Restore to here" on the first command's card: the files go back to how that step left them.
    const restored = await vscode.commands.executeCommand<any>('forge.restoreCheckpoint', {
      taskId: session().id,
      toolCallId: 'cp-first',
      rewind: false,
      confirm: false,
      conflicts: 'skip',
    });
    assert.ok(restored, 'the restore ran');
    assert.deepStrictEqual(restored.conflicts, []);
    assert.strictEqual(await readText(wsPath('cp-note.txt')), 'one\n', "the command's change to cp-note.txt is undone");
    assert.strictEqual(fs.existsSync(wsPath('out.txt')), false, 'out.txt, created by the command, is gone');
    assert.strictEqual(fs.existsSync(wsPath('gen', 'a.txt')), false, 'gen/a.txt, created by the command, is gone');
    assert.deepStrictEqual([...restored.deleted].sort(), [wsPath('gen', 'a.txt'), wsPath('out.txt')].sort());
    assert.deepStrictEqual(restored.restored, [wsPath('cp-note.txt')]);
  });
});
