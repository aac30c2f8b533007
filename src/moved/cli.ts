#!/usr/bin/env node
/**
 * The `botbuilder-conversation-analytics` command until 0.1 (`serve`, `transcript`, `import`): the
 * commands are now the `botbuilder-conversation-analytics-endpoint` package's. Says so, with the
 * command line to run instead, and exits with code 1.
 */
import { movedCommandMessage } from './message.js';

process.stderr.write(`${movedCommandMessage(process.argv.slice(2))}\n`);
process.exitCode = 1;
