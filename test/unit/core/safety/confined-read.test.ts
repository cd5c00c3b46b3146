// Every reader of workspace files for the prompt or the configuration goes through the read_file rule
// (core/safety/confined-read.ts): real symlinks, FIFOs and secrets in a temp folder, against the pieces the
// extension runs (core rules + prompt files over the Node file system its VscodeWorkspaceFs extends) and the CLI's
// own entry points (loadProjectRules, the MCP config reader, memory). A refused file is skipped with a warning.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadProjectRules } from '../../../../src/cli/rules';
import { openTaskStore } from '../../../../src/cli/runtime';
import { PromptFileCommands } from '../../../../src/core/commands/prompt-files';
import { openForgeMemory, WORKSPACE_MEMORY_FILE } from '../../../../src/core/memory';
import { createModeContextGatherer } from '../../../../src/core/modes/context';
import { discoverBaseRules, TaskRules } from '../../../../src/core/rules/project-rules';
import { ConfinedReader } from '../../../../src/core/safety/confined-read';
import { WorkspaceSandbox } from '../../../../src/core/safety/paths';
import { createReadFileTool } from '../../../../src/core/tools/builtin/read-file';
import { walk } from '../../../../src/core/tools/builtin/walk';
import { NodeWorkspaceFs } from '../../../../src/node';
import { readMcpConfigFile, readWorkspaceMcpConfig } from '../../../../src/node/mcp/config-files';
import { readRegularFile } from '../../../../src/node/regular-file';
import { NodeMemoryFileIO } from '../../../../src/node/memory-file-io';

const PRIVATE_KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----\n';
const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('confined reads of the control plane (rules, prompt files, MCP config, memory)', function () {
  this.timeout(10_000);
  let base: string;
  let ws: string;
  let outside: string;
  const fifos: string[] = [];

  const write = async (rel: string, text: string | Uint8Array, root = ws) => {
    const abs = path.join(root, rel);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.writeFile(abs, text);
    return abs;
  };
  const link = async (target: string, rel: string) => {
    const abs = path.join(ws, rel);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.symlink(target, abs);
  };
  const fifo = async (rel: string) => {
    const abs = path.join(ws, rel);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    execFileSync('mkfifo', [abs]);
    fifos.push(abs);
  };
  /** The extension's pieces: its WorkspaceFs is a NodeWorkspaceFs (VscodeWorkspaceFs only adds vscode's folders and writes). */
  const extensionFs = () => new NodeWorkspaceFs([ws]);

  beforeEach(async () => {
    base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-confined-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'home');
    await fsp.mkdir(ws);
    await write('.ssh/id_rsa', PRIVATE_KEY, outside);
    await write('notes/private.md', `notes ${PRIVATE_KEY}`, outside);
  });
  afterEach(async () => {
    // A reader stuck on a FIFO (the bug this guards against) would hold a libuv thread: open the write end to free it.
    for (const f of fifos.splice(0)) {
      try {
        closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        /* no reader waiting */
      }
    }
    await fsp.rm(base, { recursive: true, force: true });
  });

  describe('the reader', () => {
    it('reads a workspace file, and follows a link that stays inside the workspace', async () => {
      await write('docs/rules.md', 'Use tabs.');
      await link('docs/rules.md', 'AGENTS.md');
      const r = await new ConfinedReader(extensionFs()).readText(path.join(ws, 'AGENTS.md'), { maxBytes: 1000 });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.text, 'Use tabs.');
      assert.equal(r.display, 'AGENTS.md');
    });

    it("refuses a link out of the workspace, a linked folder out, a secret by name (even inside), a .forgeignore'd file", async () => {
      await link(path.join(outside, '.ssh/id_rsa'), 'AGENTS.md');
      await link(path.join(outside, 'notes'), 'linked');
      await write('.env', 'TOKEN=1');
      await write('deploy/id_rsa', PRIVATE_KEY);
      await link('.env', 'ENV.md');
      await write('private/x.md', 'hidden');
      await write('.forgeignore', 'private/\n');
      const reader = new ConfinedReader(extensionFs());
      const code = async (rel: string) => {
        const r = await reader.readText(path.join(ws, rel), { maxBytes: 100_000 });
        return r.ok ? 'ok' : r.code;
      };
      assert.equal(await code('AGENTS.md'), 'symlink-escape');
      assert.equal(await code('linked/private.md'), 'symlink-escape');
      assert.equal(await code('.env'), 'secret');
      assert.equal(await code('deploy/id_rsa'), 'secret');
      assert.equal(await code('ENV.md'), 'secret');
      assert.equal(await code('private/x.md'), 'ignored');
      assert.equal(await code('missing.md'), 'missing');
      const listing = await reader.listDir(path.join(ws, 'linked'));
      assert.equal(listing.ok, false);
    });

    posixOnly('refuses a FIFO without opening it for a blocking read, and a file over the cap or binary', async () => {
      await fifo('AGENTS.md');
      await write('big.md', 'x'.repeat(5000));
      await write('bin.md', new Uint8Array([0x41, 0, 0x42]));
      const reader = new ConfinedReader(extensionFs());
      const started = Date.now();
      const r = await reader.readText(path.join(ws, 'AGENTS.md'), { maxBytes: 1000 });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.code, 'not-a-file');
      assert.match(!r.ok ? r.message : '', /AGENTS\.md was not read: it is a FIFO/);
      assert.ok(Date.now() - started < 2000);
      const big = await reader.readText(path.join(ws, 'big.md'), { maxBytes: 1000 });
      assert.equal(!big.ok && big.code, 'too-large');
      const head = await reader.readText(path.join(ws, 'big.md'), { maxBytes: 1000, overCap: 'truncate' });
      assert.ok(head.ok && head.truncated && head.text.length === 1000);
      const bin = await reader.readText(path.join(ws, 'bin.md'), { maxBytes: 1000 });
      assert.equal(!bin.ok && bin.code, 'binary');
    });

    posixOnly('read_file itself refuses a FIFO at once instead of waiting on it', async () => {
      await fifo('pipe.txt');
      const tool = createReadFileTool(new WorkspaceSandbox(extensionFs(), { trusted: true }));
      const r = await Promise.race([
        tool.execute({ path: 'pipe.txt' }, { signal: AbortSignal.timeout(5000) } as never),
        new Promise<'hang'>((res) => setTimeout(() => res('hang'), 2000)),
      ]);
      assert.notEqual(r, 'hang');
      assert.match(r === 'hang' ? '' : String(r.content), /pipe\.txt is not a regular file/);
    });

    posixOnly(
      'the Node read judges the opened handle: a FIFO or a link put in place of the checked path is refused',
      async () => {
        await fifo('pipe');
        await assert.rejects(
          readRegularFile(path.join(ws, 'pipe'), 100),
          (e: NodeJS.ErrnoException) => e.code === 'ENOTREG',
        );
        await link(path.join(outside, '.ssh/id_rsa'), 'AGENTS.md');
        await assert.rejects(
          readRegularFile(path.join(ws, 'AGENTS.md'), 100),
          (e: NodeJS.ErrnoException) => e.code === 'ELOOP',
        );
        await write('ok.txt', 'hello');
        const head = await readRegularFile(path.join(ws, 'ok.txt'), 3);
        assert.deepEqual(
          { ...head, data: Buffer.from(head.data).toString() },
          { data: 'hel', truncated: true, size: 5 },
        );
      },
    );
  });

  describe("project rules, as the extension's RulesService reads them (core + Node fs)", () => {
    const baseRules = async () => {
      const warnings: string[] = [];
      const reader = new ConfinedReader(extensionFs(), { warn: (m) => warnings.push(m) });
      const rules = await discoverBaseRules(reader, { warn: (m) => warnings.push(m) });
      return { rules, warnings, reader };
    };

    it('AGENTS.md -> ~/.ssh/id_rsa never reaches the prompt; the other rules still do, and the user is told', async () => {
      await link(path.join(outside, '.ssh/id_rsa'), 'AGENTS.md');
      await write('.forge/rules/style.md', 'No semicolons.');
      const { rules, warnings } = await baseRules();
      assert.deepEqual(
        rules.map((r) => r.display),
        ['.forge/rules/style.md'],
      );
      assert.ok(!rules.some((r) => r.text.includes('PRIVATE KEY')));
      assert.match(
        warnings.join('\n'),
        /Project rules: skipped AGENTS\.md was not read: it is a symbolic link .*outside the workspace/,
      );
    });

    it('.forge/rules/x.md linked out, and a .forge/rules folder linked out, are skipped with a warning', async () => {
      await link(path.join(outside, 'notes/private.md'), '.forge/rules/x.md');
      await write('.forge/rules/y.md', 'Rule Y');
      let r = await baseRules();
      assert.deepEqual(
        r.rules.map((s) => s.display),
        ['.forge/rules/y.md'],
      );
      assert.match(r.warnings.join('\n'), /\.forge\/rules\/x\.md was not read: .*outside the workspace/);
      await fsp.rm(path.join(ws, '.forge/rules'), { recursive: true });
      await link(path.join(outside, 'notes'), '.forge/rules');
      r = await baseRules();
      assert.deepEqual(r.rules, []);
      assert.match(r.warnings.join('\n'), /\.forge\/rules was not read: .*outside the workspace/);
    });

    it('a secret-named file is refused even inside the workspace (AGENTS.md -> .env, a rule linked to a key)', async () => {
      await write('.env', 'OPENAI_API_KEY=sk-live-123');
      await write('certs/server.pem', PRIVATE_KEY);
      await link('.env', 'AGENTS.md');
      await link('../../certs/server.pem', '.forge/rules/tls.md');
      const { rules, warnings } = await baseRules();
      assert.deepEqual(rules, []);
      assert.match(warnings.join('\n'), /AGENTS\.md was not read: it looks like a secret/);
      assert.match(warnings.join('\n'), /\.forge\/rules\/tls\.md was not read: it looks like a secret/);
    });

    posixOnly('a FIFO named AGENTS.md (or a rule) does not hang the host: skipped, the rest is read', async () => {
      await fifo('AGENTS.md');
      await fifo('.forge/rules/a.md');
      await write('.forge/rules/b.md', 'Rule B');
      const started = Date.now();
      const { rules, warnings } = await baseRules();
      assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
      assert.deepEqual(
        rules.map((r) => r.display),
        ['.forge/rules/b.md'],
      );
      assert.match(warnings.join('\n'), /AGENTS\.md was not read: it is a FIFO/);
      assert.match(warnings.join('\n'), /\.forge\/rules\/a\.md was not read: it is a FIFO/);
    });

    posixOnly(
      'a nested AGENTS.md linked out (or in a folder linked out, or a FIFO) is not read when a tool touches its folder',
      async () => {
        await write('AGENTS.md', 'root rules');
        await write('pkg/x.ts', '');
        await link(path.join(outside, '.ssh/id_rsa'), 'pkg/AGENTS.md');
        await write('AGENTS.md', 'vendor rules', path.join(outside, 'vendor'));
        await link(path.join(outside, 'vendor'), 'vendor');
        await write('lib/y.ts', '');
        await fifo('lib/AGENTS.md');
        await write('ok/AGENTS.md', 'ok rules');
        const { rules, reader } = await baseRules();
        const warnings: string[] = [];
        const task = new TaskRules(
          reader,
          () => rules,
          (m) => warnings.push(m),
        );
        assert.equal(await task.touch('pkg/x.ts'), false);
        assert.equal(await task.touch('vendor/z.ts'), false);
        assert.equal(await task.touch('lib/y.ts'), false);
        assert.equal(await task.touch('ok/z.ts'), true);
        assert.deepEqual(
          task.sources().map((s) => s.display),
          ['AGENTS.md', 'ok/AGENTS.md'],
        );
        assert.ok(!task.text().includes('PRIVATE KEY') && !task.text().includes('vendor rules'));
        assert.match(warnings.join('\n'), /pkg\/AGENTS\.md was not read: .*outside the workspace/);
        assert.match(warnings.join('\n'), /vendor\/AGENTS\.md was not read: .*outside the workspace/);
        assert.match(warnings.join('\n'), /lib\/AGENTS\.md was not read: it is a FIFO/);
      },
    );
  });

  describe('prompt files (slash commands)', () => {
    posixOnly(
      'a .forge/commands folder linked out, a linked-out subfolder or file, and a FIFO give no command',
      async () => {
        await write('deploy.md', 'Deploy $1', path.join(outside, 'cmds'));
        await link(path.join(outside, 'cmds'), '.forge/commands');
        const warnings: string[] = [];
        let cmds = new PromptFileCommands(extensionFs(), (m) => warnings.push(m));
        assert.deepEqual(await cmds.list(), []);
        assert.equal(await cmds.expand('deploy', { raw: '', argv: [] }), undefined);
        assert.match(warnings.join('\n'), /\.forge\/commands was not read: .*outside the workspace/);

        await fsp.rm(path.join(ws, '.forge/commands'));
        await write('.forge/commands/ok.md', 'Fine $ARGUMENTS');
        await link(path.join(outside, 'notes/private.md'), '.forge/commands/leak.md');
        await link(path.join(outside, 'cmds'), '.forge/commands/ns');
        await fifo('.forge/commands/hang.md');
        await write('.forge/commands/id_rsa.md', PRIVATE_KEY);
        warnings.length = 0;
        cmds = new PromptFileCommands(extensionFs(), (m) => warnings.push(m));
        const started = Date.now();
        assert.deepEqual(
          (await cmds.list()).map((c) => c.name),
          ['ok'],
        );
        assert.ok(Date.now() - started < 2000);
        assert.equal(await cmds.expand('leak', { raw: '', argv: [] }), undefined);
        assert.equal(await cmds.expand('ns:deploy', { raw: '', argv: [] }), undefined);
        const text = warnings.join('\n');
        assert.match(text, /leak\.md was not read: .*outside the workspace/);
        assert.match(text, /\.forge\/commands\/ns was not read: .*outside the workspace/);
        assert.match(text, /hang\.md was not read: it is a FIFO/);
        assert.match(text, /id_rsa\.md was not read: it looks like a secret/);
        assert.equal(await cmds.expand('id_rsa', { raw: '', argv: [] }), undefined);
      },
    );
  });

  describe('the CLI', () => {
    posixOnly('loadProjectRules: the same refusals, named on the warning channel', async () => {
      await link(path.join(outside, '.ssh/id_rsa'), 'AGENTS.md');
      await link(path.join(outside, 'notes/private.md'), '.forge/rules/x.md');
      await fifo('.forge/rules/f.md');
      await write('.forge/rules/.env.md', 'TOKEN=1');
      await write('.forge/rules/ok.md', 'Rule OK');
      const warnings: string[] = [];
      const rules = await loadProjectRules(new NodeWorkspaceFs([ws]), (m) => warnings.push(m));
      assert.deepEqual(rules.files, ['.forge/rules/ok.md']);
      assert.ok(!rules.text.includes('PRIVATE KEY'), rules.text);
      assert.equal(warnings.length, 4, warnings.join('\n'));
    });

    posixOnly(
      '.vscode/mcp.json linked out, or a FIFO, configures nothing and says why (extension and CLI read it alike)',
      async () => {
        await write(
          'mcp.json',
          JSON.stringify({ servers: { evil: { type: 'stdio', command: 'sh', args: ['-c', 'id'] } } }),
          outside,
        );
        await link(path.join(outside, 'mcp.json'), '.vscode/mcp.json');
        let parsed = await readWorkspaceMcpConfig(ws);
        assert.deepEqual(parsed?.servers, []);
        assert.match(parsed?.problems.join('\n') ?? '', /\.vscode\/mcp\.json was not read: .*outside the workspace/);
        await fsp.rm(path.join(ws, '.vscode'), { recursive: true });
        await link(outside, '.vscode');
        parsed = await readWorkspaceMcpConfig(ws);
        assert.deepEqual(parsed?.servers, []);
        await fsp.rm(path.join(ws, '.vscode'));
        await fifo('.vscode/mcp.json');
        parsed = await readWorkspaceMcpConfig(ws);
        assert.match(parsed?.problems.join('\n') ?? '', /FIFO/);
        // The user's own --mcp-config may live anywhere, but a FIFO there does not hang either.
        const userFile = await readMcpConfigFile(path.join(ws, '.vscode/mcp.json'), 'mine.json');
        assert.match(userFile?.problems.join('\n') ?? '', /FIFO/);
        await fsp.rm(path.join(ws, '.vscode/mcp.json'));
        await write('.vscode/mcp.json', JSON.stringify({ servers: { ok: { type: 'stdio', command: 'node' } } }));
        parsed = await readWorkspaceMcpConfig(ws);
        assert.deepEqual(
          parsed?.servers.map((s) => s.name),
          ['ok'],
        );
      },
    );

    posixOnly(
      'the workspace memory file linked out, or a FIFO, is not opened (memory is off, with the reason)',
      async () => {
        await link(path.join(outside, '.ssh/id_rsa'), WORKSPACE_MEMORY_FILE);
        const open = () =>
          openForgeMemory({
            io: new NodeMemoryFileIO(),
            workspaceRoot: ws,
            workspaceFs: new NodeWorkspaceFs([ws]),
            reflection: { budgetUsd: 0 },
          });
        await assert.rejects(open(), /memory\.jsonl was not read: .*outside the workspace/);
        await fsp.rm(path.join(ws, WORKSPACE_MEMORY_FILE));
        await fifo(WORKSPACE_MEMORY_FILE);
        await assert.rejects(open(), /memory\.jsonl was not read: it is a FIFO/);
        await fsp.rm(path.join(ws, WORKSPACE_MEMORY_FILE));
        await fsp.rm(path.join(ws, '.forge'), { recursive: true });
        await link(outside, '.forge');
        await assert.rejects(
          open(),
          /outside the workspace/,
          'a .forge folder linked out is not written through either',
        );
      },
    );
  });

  describe('the CLI task store', () => {
    posixOnly('.forge linked out of the workspace: no task record is written or read there', async () => {
      await fsp.mkdir(path.join(outside, 'elsewhere'), { recursive: true });
      await link(path.join(outside, 'elsewhere'), '.forge');
      await assert.rejects(
        openTaskStore(ws, () => undefined),
        /\.forge\/tasks leads outside the workspace/,
      );
      assert.deepEqual(await fsp.readdir(path.join(outside, 'elsewhere')), [], 'nothing created through the link');
      await fsp.rm(path.join(ws, '.forge'));
      const store = await openTaskStore(ws, () => undefined);
      assert.ok(store);
      assert.ok((await fsp.stat(path.join(ws, '.forge', 'tasks'))).isDirectory());
    });
  });

  describe('.forgeignore and mode context', () => {
    posixOnly(
      'a FIFO .forgeignore hangs neither a path check nor a walk; a linked-out one is not used, with a warning',
      async () => {
        await write('src/a.ts', 'x');
        await fifo('.forgeignore');
        const warnings: string[] = [];
        const sandbox = new WorkspaceSandbox(new NodeWorkspaceFs([ws]), {
          trusted: true,
          warn: (m) => warnings.push(m),
        });
        const r = await sandbox.resolve('src/a.ts', 'read');
        assert.ok(r.ok);
        const root = await sandbox.resolve('.', 'list');
        assert.ok(root.ok);
        const seen: string[] = [];
        for await (const e of walk(sandbox, root, { recursive: true })) seen.push(e.rel);
        assert.ok(seen.includes('src/a.ts'), seen.join(','));
        assert.match(warnings.join('\n'), /\.forgeignore is not used: it is a FIFO/);
      },
    );

    posixOnly("the plan mode's manifests skip a FIFO or a link out, and say so", async () => {
      await fifo('package.json');
      await write('go.mod', 'module example.com/demo\n');
      await link(path.join(outside, '.ssh/id_rsa'), 'Makefile');
      const warnings: string[] = [];
      const gather = createModeContextGatherer({
        fs: new NodeWorkspaceFs([ws]),
        sandbox: { trusted: false, warn: (m) => warnings.push(m) },
      });
      const ctx = await gather('plan', 4000, new AbortController().signal);
      assert.ok(
        ctx?.sources.includes('go.mod') && !ctx.sources.includes('package.json') && !ctx.sources.includes('Makefile'),
        JSON.stringify(ctx?.sources),
      );
      assert.ok(!ctx?.text.includes('PRIVATE KEY'));
      assert.match(warnings.join('\n'), /package\.json was not read: it is a FIFO/);
      assert.match(warnings.join('\n'), /Makefile was not read: .*outside the workspace/);
    });
  });
});
