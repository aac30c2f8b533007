/** The dispatcher: picks the command by the first argument word, prints help, maps failures to exit codes. */
import { PROGRAM, UsageError, println, type CliIO, type Command } from './command.js';

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's options.`,
  ].join('\n');
}

/**
 * Runs the CLI with `argv` (without node and the script). Resolves with the exit code: 0 on
 * success, 1 when the command failed, 2 for bad arguments. Never rejects.
 */
export async function runCli(argv: string[], commands: readonly Command[], io: CliIO): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined || word === '--help' || word === '-h' || word === 'help') {
    println(word === undefined ? io.stderr : io.stdout, overview(commands));
    return word === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === word);
  if (!command) {
    println(io.stderr, `Unknown command "${word}".\n\n${overview(commands)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    println(io.stdout, command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      println(io.stderr, `${PROGRAM} ${command.name}: ${error.message}\nRun \`${PROGRAM} ${command.name} --help\` for its options.`);
      return 2;
    }
    println(io.stderr, `${PROGRAM} ${command.name}: ${(error as Error)?.message ?? String(error)}`);
    return 1;
  }
}
