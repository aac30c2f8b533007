/** `serve`: runs the local tracking endpoint until Ctrl+C (SIGINT) or SIGTERM. */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { startTrackingEndpoint, type TrackingEndpoint } from '../index.js';
import { DEFAULT_DATABASE_FILE, DEFAULT_PORT } from '../options.js';
import { parseMaskKinds } from '../store/mask.js';
import { whereKept } from '../store/where-kept.js';
import { PROGRAM, UsageError, intOption, parseCommandArgs, println, type CliIO, type Command } from './command.js';

const usage = `Usage: ${PROGRAM} serve [options]

Runs a tracking endpoint: POST /track as the tracking spec describes it, records kept in SQLite
(a file, nothing to set up) or PostgreSQL (several endpoints on one database), JSON reads under
/api/, a live page at /, and /healthz for load balancers.

Options:
  --port N                 Port to listen on (default ${DEFAULT_PORT}, env TRACKING_PORT; 0 = any free port)
  --host ADDRESS           Address to listen on (default 127.0.0.1: this machine only)
  --allowed-host NAME      A host name clients use to reach the endpoint (repeat for several; also
                           env TRACKING_ALLOWED_HOSTS, comma-separated). Requests addressed to any
                           other name are refused (403), writes included
  --key [NAME=]KEY         An accepted API key, one per bot, optionally named (pizza-bot=sk_…);
                           repeat for several (also env TRACKING_API_KEYS, comma-separated, and
                           TRACKING_API_KEY). Without any, every key that is not a placeholder is
                           accepted (only allowed on 127.0.0.1). Write keys never read.
  --reader NAME=TOKEN[:BOTS][:admin]
                           A reader and its token (repeat; also env TRACKING_READERS, comma-
                           separated): NAME=TOKEN reads every bot, NAME=TOKEN:pizza,support only
                           those (names from --key), :admin may also erase a user's data
                           (NAME=TOKEN:admin, NAME=TOKEN:pizza:admin). Off 127.0.0.1, reads need
                           a reader token (Authorization: Bearer TOKEN); on it, once one is given
  --trust-proxy-user HEADER
                           Reads come through an auth proxy that names the signed-in user in
                           HEADER (X-Forwarded-User); requests without it are refused (401)
  --reader-user NAME[:BOTS][:admin]
                           A user the proxy may name, and what they may read (repeat)
  --metrics-token TOKEN    A token that may read GET /metrics only, as Authorization: Bearer
                           TOKEN (also env TRACKING_METRICS_TOKEN); readers that see every bot
                           may read it too
  --data FILE              SQLite database file (default ${DEFAULT_DATABASE_FILE}); an earlier
                           version's .ndjson data file is imported once into FILE.db
  --database URL           PostgreSQL instead: postgres://user:password@host:5432/db (also env
                           TRACKING_DATABASE_URL). Run as many endpoints on it as you like
  --memory                 Keep records in memory only (lost when the endpoint stops)
  --fsync                  SQLite: sync every commit to disk before acknowledging (survives a power cut)
  --retention DAYS         Delete what happened more than DAYS days ago (90 or 90d), hourly
  --max-body BYTES         Largest accepted body (default 1048576)
  --max-read-wait MS       How long a read may wait for the views to catch up after a burst
                           before it is answered 503 with Retry-After (default 5000)
  --max-write-wait MS      How long a record may wait, uncommitted, while the views are too far
                           behind before it is answered 503, not stored (default 4000)
  --dm-platform NAME       Platform value of the direct-message platform (default twitter)
  --messenger-platform NAME  Platform value of the messenger platform (default facebook)
  --allow-referral-event   Accept referralEvent as an event type
  --tls-cert FILE          Serve HTTPS with this certificate (PEM, chain included: fullchain.pem);
  --tls-key FILE           and this private key (PEM). Both are read again on SIGHUP (kill -HUP),
                           so a renewed certificate is used without a restart
  --strict-versions        Refuse a v the spec does not list. By default a client version such as
                           12.1.0-npm (dashbot's own SDKs) is accepted and said once in the log
  --keep-card-numbers      Store payment card numbers as sent. By default every run of 13-19 digits
                           (spaces or dashes between groups) that passes the Luhn check is stored
                           as •••• 1234 (its last four digits). PCI DSS RISK: with this flag the
                           database (and its backups) hold card numbers and fall in PCI DSS scope
  --mask email,phone       Also mask email addresses ([email]) and phone numbers ([phone]) at
                           ingestion (see the endpoint's README for what counts as one)
  -h, --help               Show this help`;

/** The keys from `--key` flags and the environment, without duplicates. */
export function collectKeys(flags: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = [...(env.TRACKING_API_KEYS ?? '').split(','), env.TRACKING_API_KEY ?? ''];
  return [...new Set([...(flags ?? []), ...fromEnv].map((key) => key.trim()).filter((key) => key.length > 0))];
}

/** Who may read, as the start-up lines say it (never a token). */
function readers(endpoint: TrackingEndpoint): string {
  const { readerCount, proxyUserHeader } = endpoint.access;
  if (proxyUserHeader !== undefined) return `signed in through the auth proxy's ${proxyUserHeader} header, ${readerCount} user${readerCount === 1 ? '' : 's'}`;
  if (readerCount > 0) return `${readerCount} reader token${readerCount === 1 ? '' : 's'}, as Authorization: Bearer`;
  return endpoint.access.open ? 'open on this machine: no --reader given' : 'nobody yet: give --reader NAME=TOKEN to read';
}

/**
 * The addresses to print for `url`: itself, unless it listens on every interface (`0.0.0.0`, `::`),
 * which is no address another machine can use. Then the interfaces' own: those other machines
 * can reach first (IPv4 before IPv6, link-local IPv6 left out), then this machine's loopback.
 */
export function reachableUrls(url: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const parsed = new URL(url);
  const any = parsed.hostname === '0.0.0.0' ? 'IPv4' : parsed.hostname === '[::]' ? 'IPv6' : undefined;
  if (any === undefined) return [url];
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  // An IPv6 socket on :: takes IPv4 connections too (Node's default), so both families are reachable.
  const usable = all.filter((address) => (any === 'IPv6' || address.family === 'IPv4') && !address.address.toLowerCase().startsWith('fe80:'));
  const order = (address: NetworkInterfaceInfo) => (address.internal ? 2 : 0) + (address.family === 'IPv4' ? 0 : 1);
  const sorted = usable.sort((a, b) => order(a) - order(b));
  const urls = sorted.map((address) => `${parsed.protocol}//${address.family === 'IPv6' ? `[${address.address}]` : address.address}${parsed.port === '' ? '' : `:${parsed.port}`}`);
  return urls.length > 0 ? [...new Set(urls)] : [url];
}

async function describe(endpoint: TrackingEndpoint, keyCount: number): Promise<string[]> {
  const stored = await endpoint.store.count();
  const { kind, location } = endpoint.database;
  const where = whereKept(kind, location);
  const imported = endpoint.imported;
  const [url, ...others] = reachableUrls(endpoint.url, networkInterfaces());
  return [
    `Tracking endpoint listening on ${url}${others.length > 0 ? ` (every interface; also ${others.join(', ')})` : ''}`,
    `  Track:  POST ${url}/track  (${endpoint.acceptsAnyKey ? 'no --key given: accepting any API key that is not a placeholder' : `accepting ${keyCount} API key${keyCount === 1 ? '' : 's'}`})`,
    `  Page:   ${url}/  (transcripts and charts, live)`,
    `  Read:   ${url}/api/summary, /api/users, /api/conversations, /api/transcript?user=ID  (${readers(endpoint)})`,
    `  Data:   ${where} (${stored} record${stored === 1 ? '' : 's'})`,
    ...(endpoint.tls !== undefined ? [`  TLS:    ${endpoint.tls} (kill -HUP ${process.pid} reloads it)`] : []),
    ...(imported !== undefined
      ? [`  Import: ${imported.records} record(s) from ${imported.file} (left in place)${imported.skipped > 0 ? `; ${imported.skipped} unreadable line(s) skipped` : ''}`]
      : []),
    `  Health: ${url}/healthz`,
    `  Bots:   TRACKING_BASE_URL=${url}`,
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

/** On SIGHUP: the certificate files are read again; one that cannot be used leaves the old one in use. */
function reloadCertificate(endpoint: TrackingEndpoint, io: CliIO): void {
  if (endpoint.tls === undefined) {
    println(io.stderr, 'tracking endpoint: SIGHUP: nothing to reload (it serves plain HTTP; --tls-cert and --tls-key give it a certificate to reload).');
    return;
  }
  endpoint.reloadTls().then(
    (description) => println(io.stderr, `tracking endpoint: SIGHUP: reloaded the TLS certificate: ${description}.`),
    (error: Error) => println(io.stderr, `tracking endpoint: SIGHUP: kept the TLS certificate in use: ${error.message}`),
  );
}

/** `--retention 90` or `90d`: a number of days greater than 0. */
function retentionOption(value: string): number {
  const match = /^(\d+(?:\.\d+)?)d?$/.exec(value.trim());
  const days = match ? Number(match[1]) : NaN;
  if (!(days > 0)) throw new UsageError(`--retention takes a number of days, such as 90 or 90d; got "${value}".`);
  return days;
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
        reader: { type: 'string', multiple: true },
        'trust-proxy-user': { type: 'string' },
        'reader-user': { type: 'string', multiple: true },
        'metrics-token': { type: 'string' },
        data: { type: 'string' },
        database: { type: 'string' },
        memory: { type: 'boolean' },
        retention: { type: 'string' },
        fsync: { type: 'boolean' },
        'max-body': { type: 'string' },
        'max-read-wait': { type: 'string' },
        'max-write-wait': { type: 'string' },
        'dm-platform': { type: 'string' },
        'messenger-platform': { type: 'string' },
        'allow-referral-event': { type: 'boolean' },
        'strict-versions': { type: 'boolean' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'keep-card-numbers': { type: 'boolean' },
        mask: { type: 'string', multiple: true },
      },
    });
    const databaseUrl = values.database ?? (io.env.TRACKING_DATABASE_URL || undefined);
    const chosen = [values.memory && '--memory', values.data !== undefined && '--data', values.database !== undefined && '--database'].filter(Boolean);
    if (chosen.length > 1) throw new UsageError(`${chosen.join(' and ')} cannot be used together: choose where records are kept.`);
    if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
      throw new UsageError(`--database takes a PostgreSQL URL (postgres://user:password@host:5432/db); for a SQLite file use --data FILE.`);
    }
    const mask = parseMaskKinds(values.mask ?? []);
    if ('error' in mask) throw new UsageError(mask.error);
    const retentionDays = values.retention === undefined ? undefined : retentionOption(values.retention);
    const port = values.port !== undefined ? intOption('port', values.port, 0, 65535) : intOption('port (env TRACKING_PORT)', io.env.TRACKING_PORT || undefined, 0, 65535);
    const apiKeys = collectKeys(values.key, io.env);
    const signals = watchSignals(io);
    const endpoint = await startTrackingEndpoint({
      port,
      host: values.host,
      allowedHosts: [...(values['allowed-host'] ?? []), ...(io.env.TRACKING_ALLOWED_HOSTS ?? '').split(',')].map((name) => name.trim()).filter(Boolean),
      apiKeys,
      readers: [...(values.reader ?? []), ...(io.env.TRACKING_READERS ?? '').split(',')].map((entry) => entry.trim()).filter(Boolean),
      trustProxyUser: values['trust-proxy-user'],
      readerUsers: values['reader-user'],
      metricsToken: values['metrics-token'] ?? (io.env.TRACKING_METRICS_TOKEN || undefined),
      database: values.memory ? false : (values.data ?? databaseUrl),
      retentionDays,
      fsync: values.fsync,
      maxBodyBytes: intOption('max-body', values['max-body'], 1),
      maxReadWaitMs: intOption('max-read-wait', values['max-read-wait'], 1),
      maxWriteWaitMs: intOption('max-write-wait', values['max-write-wait'], 1),
      platformNames: { directMessage: values['dm-platform'], messenger: values['messenger-platform'] },
      allowReferralEvent: values['allow-referral-event'],
      strictVersions: values['strict-versions'],
      tlsCertFile: values['tls-cert'],
      tlsKeyFile: values['tls-key'],
      keepCardNumbers: values['keep-card-numbers'],
      mask,
      log: (message) => println(io.stderr, message),
    }).catch((error: unknown) => {
      signals.dispose();
      throw error;
    });
    for (const line of await describe(endpoint, apiKeys.length)) println(io.stdout, line);
    // SIGHUP (systemctl reload) never stops it: with HTTPS it reloads the certificate, else there is nothing to reload.
    const reload = () => reloadCertificate(endpoint, io);
    process.on('SIGHUP', reload);
    await signals.signalled;
    process.off('SIGHUP', reload);
    await endpoint.close();
    println(io.stdout, 'Stopped.');
    return 0;
  },
};
