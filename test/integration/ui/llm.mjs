// Starts test/support/llm-server.ts (TypeScript) in this process by bundling it to out/integration/ui/.
// A separate outfile from run.mjs's, so both harnesses can run at the same time without clobbering each other.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

/**
 * @param {string} repo  repository root
 * @returns {Promise<import('../../support/llm-server').LlmServer>} the full in-process server (script(), requests, close())
 */
export async function startLoopbackLlm(repo, options = {}) {
  const entry = path.join(repo, 'test/support/llm-server.ts');
  const outfile = path.join(repo, 'out/integration/ui', `llm-server-${process.pid}.cjs`);
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  try {
    const mod = createRequire(import.meta.url)(outfile);
    return await mod.startLlmServer(options);
  } finally {
    fs.rmSync(outfile, { force: true });
  }
}
