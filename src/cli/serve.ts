/** `serve`: runs the local tracking endpoint until Ctrl+C (SIGINT) or SIGTERM. */
import { startTrackingEndpoint, type TrackingEndpoint } from '../endpoint/index.js';
import { DEFAULT_DATA_FILE, DEFAULT_PORT } from '../endpoint/options.js';
import { PROGRAM, UsageError, intOption, parseCommandArgs, println, type CliIO, type Command } from './command.js';

const usage = `Usage: ${PROGRAM} serve [options]

Runs a local tracking endpoint: POST /track as the tracking spec describes it, records kept in
an append-only file, and JSON reads under /api/ (users, conversations, transcript, summary).

Options:
  --port N                 Port to listen on (default ${DEFAULT_PORT}, env TRACKING_PORT; 0 = any free port)
  --host ADDRESS           Address to listen on (default 127.0.0.1: this machine only)
  --allowed-host NAME      A host name clients use to reach the endpoint (repeat for several; also
                           env TRACKING_ALLOWED_HOSTS, comma-separated). Requests addressed to any
                           other name are refused (403), writes included
  --key KEY                An accepted API key; repeat for several (also env TRACKING_API_KEYS,
                           comma-separated, and TRACKING_API_KEY). Without any, every key that is
                           not a placeholder is accepted (only allowed on 127.0.0.1).
  --data FILE              Data file (default ${DEFAULT_DATA_FILE})
  --memory                 Keep records in memory only (lost when the endpoint stops)
  --fsync                  Flush every record to disk before acknowledging it
  --max-body BYTES         Largest accepted body (default 1048576)
  --dm-platform NAME       Platform value of the direct-message platform (default twitter)
  --messenger-platform NAME  Platform value of the messenger platform (default facebook)
  --allow-referral-event   Accept referralEvent as an event type
  -h, --help               Show this help`;

/** The keys from `--key` flags and the environment, without duplicates. */
export function collectKeys(flags: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = [...(env.TRACKING_API_KEYS ?? '').split(','), env.TRACKING_API_KEY ?? ''];
  return [...new Set([...(flags ?? []), ...fromEnv].map((key) => key.trim()).filter((key) => key.length > 0))];
}

function describe(endpoint: TrackingEndpoint, keyCount: number): string[] {
  const loaded = endpoint.store.size;
  const skipped = endpoint.store.skippedLines;
  return [
    `Tracking endpoint listening on ${endpoint.url}`,
    `  Track:  POST ${endpoint.url}/track  (${endpoint.acceptsAnyKey ? 'no --key given: accepting any API key that is not a placeholder' : `accepting ${keyCount} API key${keyCount === 1 ? '' : 's'}`})`,
    `  Page:   ${endpoint.url}/  (transcripts and charts, live)`,
    `  Read:   ${endpoint.url}/api/summary, /api/users, /api/conversations, /api/transcript?user=ID`,
    `  Data:   ${endpoint.dataFile === false ? 'in memory only (lost on stop)' : `${endpoint.dataFile} (${loaded} record${loaded === 1 ? '' : 's'} loaded)`}`,
    ...(skipped.length > 0
      ? [`  Note:   skipped ${skipped.length} unreadable line(s) of the data file (line ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}); a crash mid-write leaves one.`]
      : []),
    `  Bots:   TRACKING_BASE_URL=${endpoint.url}`,
    'Press Ctrl+C to stop.',
  ];
}

/**
 * Listens for SIGINT and SIGTERM from now on (so a signal sent as soon as the address is printed
 * is never missed). `signalled` resolves on the first; a second one exits at once.
 */
function watchSignals(io: CliIO): { signalled: Promise<string>; dispose: () => void } {
  let onSignal!: (signal: string) => void;
  const signalled = new Promise<string>((resolve) => {
    onSignal = (signal: string) => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      process.once('SIGINT', () => process.exit(130)).once('SIGTERM', () => process.exit(143));
      println(io.stdout, `${signal}: stopping (again to stop at once)…`);
      resolve(signal);
    };
  });
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return { signalled, dispose: () => void process.off('SIGINT', onSignal).off('SIGTERM', onSignal) };
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run a local tracking endpoint (POST /track, JSON reads, durable file)',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        key: { type: 'string', multiple: true },
        data: { type: 'string' },
        memory: { type: 'boolean' },
        fsync: { type: 'boolean' },
        'max-body': { type: 'string' },
        'dm-platform': { type: 'string' },
        'messenger-platform': { type: 'string' },
        'allow-referral-event': { type: 'boolean' },
      },
    });
    if (values.memory && values.data !== undefined) throw new UsageError('--memory and --data cannot be used together.');
    const port = values.port !== undefined ? intOption('port', values.port, 0, 65535) : intOption('port (env TRACKING_PORT)', io.env.TRACKING_PORT || undefined, 0, 65535);
    const apiKeys = collectKeys(values.key, io.env);
    const signals = watchSignals(io);
    const endpoint = await startTrackingEndpoint({
      port,
      host: values.host,
      allowedHosts: [...(values['allowed-host'] ?? []), ...(io.env.TRACKING_ALLOWED_HOSTS ?? '').split(',')].map((name) => name.trim()).filter(Boolean),
      apiKeys,
      dataFile: values.memory ? false : values.data,
      fsync: values.fsync,
      maxBodyBytes: intOption('max-body', values['max-body'], 1),
      platformNames: { directMessage: values['dm-platform'], messenger: values['messenger-platform'] },
      allowReferralEvent: values['allow-referral-event'],
      log: (message) => println(io.stderr, message),
    }).catch((error: unknown) => {
      signals.dispose();
      throw error;
    });
    for (const line of describe(endpoint, apiKeys.length)) println(io.stdout, line);
    await signals.signalled;
    await endpoint.close();
    println(io.stdout, 'Stopped.');
    return 0;
  },
};
