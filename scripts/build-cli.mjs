// Builds only the headless runner: dist/cli.js and the vendored modules it loads (dist/vendor). The GitHub
// Action (.github/actions/forge-run) runs this on its own checkout. `--pack <dir>` also stages the npm package
// `@forge-dev/forge` (bin `forge`) there, ready for `npm publish <dir>`: the extension's own manifest keeps its
// name (forge-agent, the VS Code extension id) and stays private.
import * as esbuild from 'esbuild';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOptions } from '../esbuild.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const PACKAGE_NAME = '@forge-dev/forge';

await esbuild.build({ ...buildOptions.cli, absWorkingDir: root });
await esbuild.build({ ...buildOptions.vendor, absWorkingDir: root });
chmodSync(path.join(root, 'dist', 'cli.js'), 0o755);

const i = process.argv.indexOf('--pack');
if (i > 0) {
  const out = path.resolve(process.argv[i + 1] ?? 'dist/npm');
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  mkdirSync(path.join(out, 'vendor'), { recursive: true });
  cpSync(path.join(root, 'dist', 'cli.js'), path.join(out, 'cli.js'));
  cpSync(path.join(root, 'dist', 'vendor'), path.join(out, 'vendor'), {
    recursive: true,
    filter: (f) => !f.endsWith('.map'),
  });
  cpSync(path.join(root, 'docs', 'cli.md'), path.join(out, 'README.md'));
  const pkg = {
    name: PACKAGE_NAME,
    version: manifest.version,
    description: 'forge: the headless runner of the Forge coding agent (forge run "task").',
    license: manifest.license,
    repository: manifest.repository,
    bin: { forge: 'cli.js' },
    files: ['cli.js', 'vendor/', 'README.md'],
    engines: { node: manifest.engines.node },
    publishConfig: { access: 'public' },
  };
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  process.stdout.write(`${PACKAGE_NAME}@${pkg.version} staged in ${out}\n`);
}
