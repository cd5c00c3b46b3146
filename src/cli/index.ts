// Entry of the `forge` command (bundled to dist/cli.js with a node shebang by esbuild.mjs).
import { main } from './main';

main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then(
  (code) => {
    // Exit once stdout has drained (a pipe reader must get every JSON line), even if a keep-alive socket lingers.
    process.stdout.write('', () => process.exit(code));
  },
  (err) => {
    process.stderr.write(`forge: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
