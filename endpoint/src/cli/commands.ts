/** The command table: one entry per command, one file per command. Add a command by adding it here. */
import type { Command } from './command.js';
import { importCommand } from './import.js';
import { serveCommand } from './serve.js';
import { transcriptCommand } from './transcript.js';
import { forgetCommand } from './forget.js';

export const commands: readonly Command[] = [serveCommand, transcriptCommand, importCommand, forgetCommand];
