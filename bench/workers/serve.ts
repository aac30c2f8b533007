/**
 * The package's CLI, built as the package builds it, so the benchmark starts `serve` as users do.
 * (It calls the CLI as endpoint/src/cli/main.ts does: the package is marked side-effect free, so importing
 * main.ts alone would be bundled away.)
 */
import { commands } from '../../endpoint/src/cli/commands.js';
import { runCli } from '../../endpoint/src/cli/run.js';

void runCli(process.argv.slice(2), commands, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
