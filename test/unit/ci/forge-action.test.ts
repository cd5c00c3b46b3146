// The CI path as a runner runs it: the example workflow (.github/workflows/forge-tasks.yml.example) and the
// composite action it uses (.github/actions/forge-run/action.yml) are parsed, and their `run:` steps executed
// with bash, in order, with GITHUB_ENV / GITHUB_OUTPUT between them: the action builds `forge` from a clean
// export of this repository (git archive HEAD, as a runner checks out the pinned ref) and runs one task of the
// matrix in a fresh git checkout against the loopback model. Only two things differ from a runner: steps that
// use other actions (checkout, setup-node, upload-artifact) are skipped, and `npm` is a shim that links this
// repository's node_modules (no test reaches the internet).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { startLlmServer, type LlmServer } from '../../support/llm-server';

const REPO = path.resolve(__dirname, '../../..');
const WORKFLOW = path.join(REPO, '.github/workflows/forge-tasks.yml.example');
const ACTION_DIR = '.github/actions/forge-run';
const KEY = 'sk-forge-action-secret-31';

type Ctx = Record<string, any>;

/** The few expression forms the workflow and the action use: paths, 'literals', ||, ==, !=, always(). */
function evaluate(expr: string, ctx: Ctx): string {
  const e = expr.trim();
  if (e === 'always()') return 'true';
  const or = e.split('||');
  if (or.length > 1) return or.map((p) => evaluate(p, ctx)).find((v) => v !== '') ?? '';
  const cmp = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(e);
  if (cmp) return String((evaluate(cmp[1], ctx) === evaluate(cmp[3], ctx)) === (cmp[2] === '=='));
  const lit = /^'(.*)'$/.exec(e);
  if (lit) return lit[1];
  const value = e.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), ctx);
  return value == null ? '' : String(value);
}

const interpolate = (text: unknown, ctx: Ctx): string =>
  String(text ?? '').replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => evaluate(e, ctx));

const truthy = (cond: unknown, ctx: Ctx) =>
  cond === undefined || evaluate(String(cond).replace(/^\$\{\{|\}\}$/g, ''), ctx) === 'true';

/** key=value lines (GITHUB_ENV / GITHUB_OUTPUT; the heredoc form is not used here). */
function readKv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

interface Runner {
  cwd: string;
  env: NodeJS.ProcessEnv;
  tmp: string;
  log: string[];
}

/**
 * One `run:` step as the runner runs it: bash -e -o pipefail, with its env and a fresh GITHUB_OUTPUT. Spawned
 * asynchronously: the loopback model answers from this process.
 */
async function runStep(r: Runner, script: string, env: Record<string, string>): Promise<Record<string, string>> {
  const output = path.join(r.tmp, `output-${r.log.length}`);
  const githubEnv = path.join(r.tmp, 'github-env');
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd: r.cwd,
    env: {
      ...r.env,
      ...env,
      GITHUB_OUTPUT: output,
      GITHUB_ENV: githubEnv,
      GITHUB_STEP_SUMMARY: path.join(r.tmp, 'summary.md'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  r.log.push(`$ ${script.split('\n')[0]}\n${text}`);
  assert.equal(code, 0, `step failed (${code}):\n${script}\n${text}`);
  Object.assign(r.env, readKv(githubEnv));
  return readKv(output);
}

describe('the GitHub Action and the example workflow, run the way a runner runs them', function () {
  this.timeout(240_000);
  let srv: LlmServer;
  let tmp: string;

  before(async () => {
    srv = await startLlmServer();
    tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-action-')));
  });
  after(async () => {
    await srv.close();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it('never installs forge by a package name', () => {
    const text = readFileSync(WORKFLOW, 'utf8') + readFileSync(path.join(REPO, ACTION_DIR, 'action.yml'), 'utf8');
    assert.doesNotMatch(text, /npx|forge-agent|npm (i|install) /);
  });

  it('the workflow runs one matrix task through the action: forge built from the checkout, exit 0, outputs', async () => {
    const workflow = parse(readFileSync(WORKFLOW, 'utf8'));
    const job = Object.values(workflow.jobs as Record<string, any>)[0];
    const matrix = job.strategy.matrix.include[0];

    // The action's checkout at its pinned ref: a clean export of HEAD (nothing built, no node_modules).
    const actionRepo = path.join(tmp, 'action-src');
    await fsp.mkdir(actionRepo);
    execFileSync('bash', ['-c', `git -C "${REPO}" archive HEAD | tar -x -C "${actionRepo}"`]);
    assert.ok(!existsSync(path.join(actionRepo, 'dist')), 'the export has no build');
    // The job's own checkout: a small repository with a package-lock (the workflow runs npm ci there too).
    const work = path.join(tmp, 'work');
    await fsp.mkdir(work);
    await fsp.writeFile(path.join(work, 'README.md'), '# demo\n');
    await fsp.writeFile(path.join(work, 'package-lock.json'), '{}\n');
    execFileSync('git', ['init', '-q'], { cwd: work });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], { cwd: work });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: work });
    // npm: links this repository's node_modules where a package-lock.json is, and records the call.
    const bin = path.join(tmp, 'bin');
    await fsp.mkdir(bin);
    await fsp.writeFile(
      path.join(bin, 'npm'),
      `#!/bin/bash\necho "npm $* (in $(pwd))" >> "${tmp}/npm.log"\n[ "$1" = ci ] && [ -f package.json ] && ln -sfn "${REPO}/node_modules" node_modules\nexit 0\n`,
      { mode: 0o755 },
    );

    srv.script([
      { toolCalls: [{ name: 'write_file', args: { path: 'NOTES.md', content: 'done by forge\n' } }] },
      { toolCalls: [{ name: 'task_completion', args: { result: 'wrote NOTES.md' } }] },
    ]);
    const runner: Runner = {
      cwd: work,
      tmp,
      log: [],
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: process.env.HOME,
        // The runner's network is the loopback model here (provider openai, its base URL overridden).
        FORGE_BASE_URL: srv.openaiBaseUrl,
        NO_COLOR: '1',
      },
    };
    const ctx: Ctx = { matrix, secrets: { OPENAI_API_KEY: KEY }, inputs: {}, steps: {}, github: {} };
    let ranAction = false;
    for (const step of job.steps as any[]) {
      if (!truthy(step.if, ctx)) continue;
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(v, ctx)]));
      if (step.run) {
        const outputs = await runStep(runner, interpolate(step.run, ctx), env);
        if (step.id) ctx.steps[step.id] = { outputs };
        continue;
      }
      if (!/\.github\/actions\/forge-run@/.test(step.uses)) continue; // checkout, setup-node, upload-artifact
      ranAction = true;
      const action = parse(readFileSync(path.join(actionRepo, ACTION_DIR, 'action.yml'), 'utf8'));
      const inputs = Object.fromEntries(
        Object.entries(action.inputs as Record<string, { default?: string }>).map(([k, v]) => [
          k,
          step.with?.[k] !== undefined ? interpolate(step.with[k], ctx) : (v.default ?? ''),
        ]),
      );
      const actx: Ctx = { inputs, steps: {}, github: { action_path: path.join(actionRepo, ACTION_DIR) } };
      for (const s of action.runs.steps as any[]) {
        if (!truthy(s.if, actx)) continue;
        const senv = Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, interpolate(v, actx)]));
        const outputs = await runStep(runner, interpolate(s.run, actx), { ...env, ...senv });
        if (s.id) actx.steps[s.id] = { outputs };
      }
      const outputs = Object.fromEntries(
        Object.entries(action.outputs as Record<string, { value: string }>).map(([k, v]) => [
          k,
          interpolate(v.value, actx),
        ]),
      );
      ctx.steps[step.id] = { outputs };
    }

    assert.ok(ranAction, 'the workflow uses the forge-run action');
    assert.equal(ctx.steps.forge.outputs['exit-code'], '0', runner.log.join('\n'));
    assert.ok(existsSync(path.join(actionRepo, 'dist', 'cli.js')), 'forge was built from the action checkout');
    const npm = readFileSync(path.join(tmp, 'npm.log'), 'utf8');
    assert.match(npm, new RegExp(`npm ci --ignore-scripts .*\\(in ${actionRepo}\\)`));
    const out = path.join(work, 'forge-out');
    const events = readFileSync(path.join(out, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual([events.at(-1).type, events.at(-1).code], ['cli_exit', 0]);
    assert.equal(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).detail, 'wrote NOTES.md');
    assert.match(
      readFileSync(path.join(out, 'changes.diff'), 'utf8'),
      /\+\+\+ b\/NOTES\.md\n@@[^\n]*\n\+done by forge/,
    );
    // The matrix task reached the model as the user's message, and the key only its Authorization header.
    assert.match(
      JSON.stringify(srv.requests[0].body.messages),
      new RegExp(matrix.task.slice(0, 30).replace(/[`.()]/g, '.')),
    );
    assert.equal(srv.requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.match(readFileSync(path.join(tmp, 'summary.md'), 'utf8'), /### forge: done \(exit 0\)/);
  });
});
