// Mocha runner loaded by the extension host through extensionTestsPath (the @vscode/test-electron contract:
// exports.run() returns a promise; rejecting = failure). Bundled to out/integration/suite/index.js.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const lines: string[] = [];
  // Prefix reporter output so the harness can pick it out of the workbench's log stream.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => {
    const line = util.format(...args);
    lines.push(line);
    console.log('[mocha] ' + line.split('\n').join('\n[mocha] '));
  };
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: Number(process.env.FORGE_IT_TEST_TIMEOUT_MS ?? 60_000),
    reporter: process.env.FORGE_IT_REPORTER ?? 'spec',
    forbidOnly: true,
  });
  if (process.env.FORGE_IT_GREP) mocha.grep(process.env.FORGE_IT_GREP);
  const dir = __dirname;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(dir, f));
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const summary = `${runner.stats?.passes ?? 0} passing, ${failures} failing, ${runner.stats?.pending ?? 0} pending`;
      console.log('[runner] ' + summary);
      const resultsFile = process.env.FORGE_IT_RESULTS;
      if (resultsFile) fs.writeFileSync(resultsFile, lines.join('\n') + '\n' + summary + '\n');
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
  });
}
