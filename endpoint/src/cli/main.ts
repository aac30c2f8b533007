#!/usr/bin/env node
/** The `botbuilder-conversation-analytics` command. Commands live in `commands.ts`, one file each. */
import { commands } from './commands.js';
import { runCli } from './run.js';

runCli(process.argv.slice(2), commands, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
