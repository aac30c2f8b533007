/**
 * One fault scenario, end to end: a real local tracking endpoint behind a fault-injecting front,
 * a real `TrackingClient` (and a bot on a TestAdapter with `TrackingMiddleware`) logging records
 * with a unique marker each while the front follows a scripted timeline of faults, then recovery.
 * Afterwards the endpoint's read side is asked what it stored, and the run is summed up: what was
 * logged, delivered, duplicated, dropped and lost; requests and attempts; the queue's peak.
 *
 * Used by the fault tests in-process (with a capturing logger) and by a child process (with
 * TRACKING_DEBUG=1 and the default stderr logger), so it imports nothing from vitest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestAdapter, type Activity } from 'botbuilder';
import { TrackingClient, type Logger, type TrackingClientOptions, type TrackingError } from '../../src/index.js';
import { TrackingMiddleware } from '../../src/middleware/index.js';
import { startTrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';
import { startFaultFront, type Fault, type FrontRequest, type Plan } from '../helpers/fault-front.js';

/** The bot's API key and the messenger page access token: they must never show up in output. */
export const API_KEY = 'fault-key-7c41d9e2b58a';
export const PAGE_TOKEN = 'EAAFaultPageToken5d1e8c0f93ab4';

/** Fast but realistic client settings: short timeout, small backoff, enough attempts to outlast the faults. */
export const CLIENT_OPTIONS = {
  requestTimeoutMs: 250,
  initialBackoffMs: 10,
  maxBackoffMs: 250,
  maxAttempts: 12,
  maxRetryDurationMs: 15_000,
  maxRetryAfterMs: 2_000,
  maxConcurrency: 8,
  maxQueueSize: 1_000,
} satisfies TrackingClientOptions;

/** A period of the timeline, in ms from the start of traffic, during which the front follows `plan`. */
export interface Phase {
  from: number;
  to: number;
  plan: Plan;
}

export interface ScenarioSpec {
  name: string;
  /** Fault phases in time order; outside them the front forwards. Traffic stops when the last one ends (recovery). */
  phases: Phase[];
  /** Where the endpoint keeps records. Default memory. */
  store?: 'memory' | 'file';
  /** The client's `maxQueueSize`. Default `CLIENT_OPTIONS.maxQueueSize`. */
  maxQueueSize?: number;
}

export interface ScenarioReport {
  name: string;
  /** Records logged (each with its own marker). */
  logged: number;
  /** Distinct markers the endpoint stored. */
  delivered: number;
  /** Stored copies beyond the first. */
  duplicated: number;
  /** Records refused at once because the queue was full (each reported). */
  dropped: number;
  /** Records given up after being tried (each reported). */
  failed: number;
  /** Logged, not refused at once, and never stored: must be 0. */
  lost: number;
  /** Requests that reached the front for these records (attempts on refused connections never do). */
  requests: number;
  /** Most attempts one record needed: the most requests the front saw for one marker, or the client's own count. */
  maxAttemptsPerRecord: number;
  /** Records queued or in flight when the faults ended. */
  pendingAtRecovery: number;
  /** Records logged after the faults ended (turns still finishing). */
  loggedAfterRecovery: number;
  /** Requests the front received after the faults ended. */
  requestsAfterRecovery: number;
  /** Highest `stats().queued + inFlight` seen. */
  peakQueued: number;
  maxQueueSize: number;
  /** Requests the endpoint accepted but whose answer never reached the client (a timeout or a reset after storing). */
  answersLost: number;
  /** Requests the endpoint answered 200 without storing: their record was stored before under the same Idempotency-Key (a retry of a lost answer). */
  replayed: number;
  /** Shortest wait, after a 429 with Retry-After, before the same record came again (ms); null without 429s. */
  minWaitAfter429Ms: number | null;
  /** Markers whose first stored copies are out of the order they were logged in, per user. */
  orderViolations: string[];
  /** Markers stored that nobody logged. */
  strangers: string[];
  /** Markers whose stored copies differ from the requests the endpoint accepted for them (and stored: a replay is not counted). */
  copyMismatches: string[];
  /** Markers the client resolved as delivered but the endpoint does not have. */
  deliveredButMissing: string[];
  /** Markers refused with queue-full that the endpoint has anyway. */
  droppedButStored: string[];
  /** Bot turns, and replies the bot got out (every turn must get its reply). */
  turns: number;
  replies: number;
  /** `dropped` as reported through onError (queue-full reports). */
  droppedReports: number;
  /** Probe records (a second client with maxAttempts 1) given up during the faults: they exercise the error paths. */
  probeErrors: number;
  /** Lines the endpoint logged about unexpected errors. */
  endpointLog: string[];
  ms: number;
}

export interface ScenarioRun {
  report: ScenarioReport;
  /** Every error: onError reports and rejected promises. */
  errors: unknown[];
}

export interface RunOptions {
  /** The clients' logger; default the client's own (stderr, debug with TRACKING_DEBUG=1). */
  logger?: Logger;
  /** Turn debug logging on explicitly (default: TRACKING_DEBUG). */
  debug?: boolean;
  /** Let the probe client report give-ups its default way (warnings through the logger) instead of an onError hook. */
  probesReportToLogger?: boolean;
}

const FORWARD: Fault = { kind: 'forward' };
const CLIENT_USERS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'] as const;
const BOT_USERS = [
  { id: 'b0', channelId: 'facebook' },
  { id: 'b1', channelId: 'facebook' },
  { id: 'b2', channelId: 'webchat' },
  { id: 'b3', channelId: 'webchat' },
] as const;
const TICK_MS = 10;

const markerText = (user: string, n: number) => `marker ${user}:${n}`;
const MARKER = /^marker (\S+):(\d+)$/;

/** The text of a record as sent, whatever its platform shape. */
export function textOf(body: unknown): string | undefined {
  const b = body as Record<string, any> | undefined;
  const text = b?.text ?? b?.json?.message?.text ?? b?.entry?.[0]?.messaging?.[0]?.message?.text;
  return typeof text === 'string' ? text : undefined;
}

function markerOf(body: unknown): string | undefined {
  const text = textOf(body);
  const m = text === undefined ? null : MARKER.exec(text);
  return m === null ? text : `${m[1]}:${m[2]}`;
}

/** Plays `spec` and reports what happened. Bounded: the timeline, then at most the client's retry caps. */
export async function runScenario(spec: ScenarioSpec, options: RunOptions = {}): Promise<ScenarioRun> {
  const started = performance.now();
  const endpointLog: string[] = [];
  const dir = spec.store === 'file' ? mkdtempSync(join(tmpdir(), 'bca-faults-')) : undefined;
  const endpoint = await startTrackingEndpoint({
    port: 0,
    apiKeys: [API_KEY],
    database: dir === undefined ? false : join(dir, 'tracking.db'),
    log: (line) => endpointLog.push(line),
    closeGraceMs: 200,
  });
  const errors = new Set<unknown>();
  const probeErrors = new Set<unknown>();
  let droppedReports = 0;
  let peak = 0;
  // Reads `client` (made below, once the front's address is known); the front calls it only for requests, which come after.
  const sample = () => {
    const s = client.stats();
    if (s.queued + s.inFlight > peak) peak = s.queued + s.inFlight;
  };

  let plan: (request: FrontRequest) => Fault = () => FORWARD;
  const route = (request: FrontRequest): Fault => {
    sample();
    // One probe the front always refuses, echoing the request (URL with the key, body with the token) in its answer.
    if (markerOf(request.body) === 'probe-refuse') return { kind: 'status', status: 400, echo: true };
    return plan(request);
  };
  const front = await startFaultFront(endpoint.url, route);
  const setPlan = async (next: Plan) => {
    if (typeof next === 'function') plan = next;
    await front.plan(typeof next === 'function' ? route : next);
  };

  const maxQueueSize = spec.maxQueueSize ?? CLIENT_OPTIONS.maxQueueSize;
  const common: TrackingClientOptions = {
    apiKey: API_KEY,
    baseUrl: front.url,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.debug === undefined ? {} : { debug: options.debug }),
  };
  const client = new TrackingClient({
    ...common,
    ...CLIENT_OPTIONS,
    maxQueueSize,
    onError: (error: TrackingError) => {
      errors.add(error);
      if ((error as { reason?: string }).reason === 'queue-full') droppedReports++;
    },
  });
  // Probes: a client that gives up at the first failure, so every fault leaves errors to inspect.
  const onProbeError = (error: unknown) => {
    errors.add(error);
    probeErrors.add(error);
  };
  const probe = new TrackingClient({ ...common, ...CLIENT_OPTIONS, maxAttempts: 1, ...(options.probesReportToLogger ? {} : { onError: onProbeError }) });

  const adapter = new TestAdapter(async (context) => {
    const m = MARKER.exec(context.activity.text ?? '');
    if (m === null) throw new Error(`unexpected text ${context.activity.text}`);
    await context.sendActivity(markerText(m[1], Number(m[2]) + 1));
    replies++;
  });
  adapter.use(new TrackingMiddleware({ client, messengerAccessToken: PAGE_TOKEN }));

  /** Every logged marker, with what the client said about it (direct log calls only). */
  const logged = new Map<string, { user: string; n: number; outcome?: 'delivered' | 'queue-full' | 'other'; attempts?: number }>();
  // Each user's markers are numbered in the order they are logged.
  const note = (user: string, n: number) => {
    logged.set(`${user}:${n}`, { user, n });
    if (recovered) loggedAfterRecovery++;
  };
  const follow = (marker: string, promise: Promise<{ status: string; attempts?: number }>) => {
    promise.then(
      (result) => Object.assign(logged.get(marker)!, { outcome: 'delivered', attempts: result.attempts }),
      (error: { reason?: string; attempts?: number }) => {
        errors.add(error);
        Object.assign(logged.get(marker)!, { outcome: error?.reason === 'queue-full' ? 'queue-full' : 'other', attempts: error?.attempts });
      },
    );
  };

  const next = new Map<string, number>();
  const seq = (user: string) => {
    const n = (next.get(user) ?? 0) + 1;
    next.set(user, n);
    return n;
  };

  function logDirect(user: (typeof CLIENT_USERS)[number]): void {
    const n = seq(user);
    const text = markerText(user, n);
    note(user, n);
    const marker = `${user}:${n}`;
    const outgoing = n % 2 === 0;
    if (user === 'c0' || user === 'c1') follow(marker, outgoing ? client.sms.logOutgoing({ text, userId: user }) : client.sms.logIncoming({ text, userId: user }));
    else if (user === 'c2' || user === 'c3') follow(marker, client.universal[outgoing ? 'logOutgoing' : 'logIncoming']({ text, userId: user, platformJson: { source: 'fault-test', n } }));
    else if (outgoing) {
      follow(marker, client.messenger.logOutgoing(
        { uri: `https://graph.facebook.com/v2.6/me/messages?access_token=${PAGE_TOKEN}`, qs: { access_token: PAGE_TOKEN }, method: 'POST', json: { recipient: { id: user }, message: { text } } },
        { recipient_id: user, message_id: `mid.${user}.${n}` },
      ));
    } else {
      follow(marker, client.messenger.logIncoming({
        object: 'page',
        entry: [{ id: 'page-1', time: Date.now(), messaging: [{ sender: { id: user }, recipient: { id: 'page-1' }, timestamp: Date.now(), message: { mid: `mid.${user}.${n}`, text } }] }],
      }));
    }
    sample();
  }

  let turns = 0;
  let replies = 0;
  const turnsRunning = new Set<Promise<void>>();
  const busyUsers = new Set<string>();
  function turn(user: (typeof BOT_USERS)[number]): void {
    if (busyUsers.has(user.id)) return; // one turn at a time per user, as a channel delivers them
    busyUsers.add(user.id);
    const n = seq(user.id);
    seq(user.id); // the reply's number
    note(user.id, n);
    turns++;
    const activity: Partial<Activity> = {
      type: 'message',
      channelId: user.channelId,
      from: { id: user.id, name: user.id },
      recipient: { id: 'bot', name: 'bot' },
      conversation: { id: `conv-${user.id}` } as Activity['conversation'],
      serviceUrl: 'https://channel.invalid/',
      text: markerText(user.id, n),
    };
    const running: Promise<void> = adapter.processActivity(activity).then(() => {
      note(user.id, n + 1);
      busyUsers.delete(user.id);
      turnsRunning.delete(running);
      sample();
    });
    turnsRunning.add(running);
  }

  // The timeline: traffic every tick until recovery; phases switch the front's plan.
  let recovered = false;
  let loggedAfterRecovery = 0;
  let pendingAtRecovery = 0;
  let requestsAtRecovery = 0;
  const timers: NodeJS.Timeout[] = [];
  const sampler = setInterval(sample, 2);
  const recoveryAt = Math.max(...spec.phases.map((p) => p.to));
  const recovery = new Promise<void>((resolve) => {
    for (const [i, phase] of spec.phases.entries()) {
      timers.push(setTimeout(() => {
        void setPlan(phase.plan);
        if (i === 0) {
          // Probes while the fault is on: each gives up at its first failure.
          timers.push(setTimeout(() => {
            for (let k = 0; k < 4; k++) probe.sms.logIncoming({ text: `probe ${k}`, userId: 'probe' }).catch(onProbeError);
            probe.messenger.logOutgoing(
              { uri: `https://graph.facebook.com/v2.6/me/messages?access_token=${PAGE_TOKEN}`, qs: { access_token: PAGE_TOKEN }, method: 'POST', json: { recipient: { id: 'probe-m' }, message: { text: 'probe-refuse' } } },
              { recipient_id: 'probe-m', message_id: 'mid.probe' },
            ).catch(onProbeError);
          }, 20));
        }
      }, phase.from));
      const last = phase.to === recoveryAt;
      timers.push(setTimeout(() => {
        if (!last) {
          void setPlan(() => FORWARD);
          return;
        }
        clearInterval(traffic);
        void setPlan(() => FORWARD).then(() => {
          const s = client.stats();
          pendingAtRecovery = s.queued + s.inFlight;
          requestsAtRecovery = front.requests.length;
          recovered = true;
          resolve();
        });
      }, phase.to));
    }
  });
  const traffic = setInterval(() => {
    for (const user of CLIENT_USERS) logDirect(user);
    for (const user of BOT_USERS) turn(user);
  }, TICK_MS);

  await recovery;
  while (turnsRunning.size > 0) await Promise.all([...turnsRunning]);
  await client.flush();
  await probe.flush();
  await front.idle();
  clearInterval(sampler);
  sample();
  for (const t of timers) clearTimeout(t);

  // What the endpoint stored, through its read side.
  const stored = new Map<string, number>();
  const firstOrder = new Map<string, number[]>();
  for (const user of [...CLIENT_USERS, ...BOT_USERS.map((u) => u.id)]) {
    const response = await fetch(`${endpoint.url}/api/transcript?user=${encodeURIComponent(user)}`);
    const { entries = [] } = (await response.json()) as { entries?: { seq: number; text?: string }[] };
    const seen: number[] = [];
    // In the order the endpoint received them (seq): the client's per-user delivery order. (A
    // transcript lists by when things happened, and an incoming record without a time of its own
    // is placed when it arrived, so a retried one sits after a later reply dated when it was logged.)
    const arrived = entries.map((entry, i) => ({ entry, i })).sort((a, b) => a.entry.seq - b.entry.seq || a.i - b.i).map(({ entry }) => entry);
    for (const entry of arrived) {
      const marker = markerOf({ text: entry.text }) ?? '';
      stored.set(marker, (stored.get(marker) ?? 0) + 1);
      const m = /:(\d+)$/.exec(marker);
      if (stored.get(marker) === 1 && m !== null) seen.push(Number(m[1]));
    }
    firstOrder.set(user, seen);
  }

  const stats = client.stats();
  const ours = front.requests.filter((r) => logged.has(markerOf(r.body) ?? ''));
  const perMarker = new Map<string, FrontRequest[]>();
  for (const r of ours) {
    const marker = markerOf(r.body)!;
    perMarker.set(marker, [...(perMarker.get(marker) ?? []), r]);
  }
  let minWaitAfter429Ms: number | null = null;
  for (const list of perMarker.values()) {
    list.forEach((r, i) => {
      if (r.fault.kind === 'status' && r.fault.status === 429 && r.answeredAt !== undefined && list[i + 1] !== undefined) {
        const wait = list[i + 1].at - r.answeredAt;
        minWaitAfter429Ms = minWaitAfter429Ms === null ? wait : Math.min(minWaitAfter429Ms, wait);
      }
    });
  }
  const orderViolations: string[] = [];
  for (const [user, seen] of firstOrder) {
    for (let i = 1; i < seen.length; i++) if (seen[i] <= seen[i - 1]) orderViolations.push(`${user}:${seen[i]} after ${user}:${seen[i - 1]}`);
  }
  const copyMismatches: string[] = [];
  for (const [marker, copies] of stored) {
    // An attempt answered 200 as a replay (its key was stored before) stored nothing.
    const accepted = (perMarker.get(marker) ?? []).filter((r) => r.endpointStatus === 200 && !r.replayed).length;
    if (copies !== accepted) copyMismatches.push(`${marker}: ${copies} stored, ${accepted} accepted`);
  }
  const entries = [...logged.entries()];
  const delivered = [...stored.keys()].filter((m) => logged.has(m)).length;
  const report: ScenarioReport = {
    name: spec.name,
    logged: logged.size,
    delivered,
    duplicated: [...stored.values()].reduce((sum, copies) => sum + copies - 1, 0),
    dropped: stats.dropped,
    failed: stats.failed,
    lost: logged.size - delivered - stats.dropped,
    requests: ours.length,
    maxAttemptsPerRecord: Math.max(0, ...[...perMarker.values()].map((l) => l.length), ...entries.map(([, r]) => r.attempts ?? 0)),
    pendingAtRecovery,
    loggedAfterRecovery,
    requestsAfterRecovery: front.requests.filter((r, i) => i >= requestsAtRecovery && logged.has(markerOf(r.body) ?? '')).length,
    peakQueued: peak,
    maxQueueSize,
    answersLost: ours.filter((r) => r.endpointStatus === 200 && !r.answered).length,
    replayed: ours.filter((r) => r.replayed === true).length,
    minWaitAfter429Ms,
    orderViolations,
    strangers: [...stored.keys()].filter((m) => !logged.has(m)),
    copyMismatches,
    deliveredButMissing: entries.filter(([m, r]) => r.outcome === 'delivered' && !stored.has(m)).map(([m]) => m),
    droppedButStored: entries.filter(([m, r]) => r.outcome === 'queue-full' && stored.has(m)).map(([m]) => m),
    turns,
    replies,
    droppedReports,
    probeErrors: probeErrors.size,
    endpointLog,
    ms: Math.round(performance.now() - started),
  };

  await client.close(1_000);
  await probe.close(1_000);
  await front.close();
  await endpoint.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  return { report, errors: [...errors] };
}

/** The scenarios, each a timeline of faults on top of steady traffic, then recovery. */
export const SCENARIOS: ScenarioSpec[] = [
  {
    name: '500 and 503 bursts',
    phases: [
      { from: 60, to: 200, plan: () => ({ kind: 'status', status: 500, echo: true }) },
      { from: 280, to: 420, plan: () => ({ kind: 'status', status: 503 }) },
    ],
  },
  {
    name: '429 with Retry-After: 1',
    phases: [{ from: 60, to: 260, plan: () => ({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }) }],
  },
  {
    name: 'connection resets',
    phases: [{ from: 60, to: 400, plan: (r) => (r.index % 3 === 0 ? { kind: 'reset', when: 'before-forward' } : r.index % 3 === 1 ? { kind: 'reset', when: 'after-store' } : FORWARD) }],
  },
  {
    name: 'answers slower than the timeout',
    phases: [{ from: 60, to: 400, plan: (r) => ({ kind: 'slow', holdMs: 600, when: r.index % 2 === 0 ? 'after-store' : 'before-forward' }) }],
  },
  {
    name: 'outage (refused), then recovery',
    store: 'file',
    phases: [{ from: 60, to: 560, plan: 'refuse-connections' }],
  },
  {
    name: 'outage (reset) overflowing the queue',
    maxQueueSize: 150,
    phases: [{ from: 60, to: 460, plan: 'reset-connections' }],
  },
];

/** The summary table: one line per scenario. */
export function formatTable(reports: readonly ScenarioReport[]): string {
  const columns: [string, (r: ScenarioReport) => string | number][] = [
    ['fault scenario', (r) => r.name],
    ['logged', (r) => r.logged],
    ['delivered', (r) => r.delivered],
    ['duplicated', (r) => r.duplicated],
    ['dropped', (r) => r.dropped],
    ['lost', (r) => r.lost],
    ['requests', (r) => r.requests],
    ['max attempts/record', (r) => r.maxAttemptsPerRecord],
    ['pending at recovery', (r) => r.pendingAtRecovery],
    ['requests after', (r) => r.requestsAfterRecovery],
    ['peak queue/cap', (r) => `${r.peakQueued}/${r.maxQueueSize}`],
    ['ms', (r) => r.ms],
  ];
  const rows = [columns.map(([title]) => title), ...reports.map((r) => columns.map(([, cell]) => String(cell(r))))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}
