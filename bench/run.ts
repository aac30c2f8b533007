/**
 * `npm run bench`: measures, in one run on one machine, what tracking costs a bot — next to
 * dashbot's botbuilder middleware (the common alternative) and a bare `node:http` loop (the
 * machine's limit) — and prints each figure as a ratio with its spread and its target.
 *
 *   npm run bench                 full run (a few minutes)
 *   npm run bench -- --quick      smoke run (about a minute; fewer, smaller rounds)
 *   npm run bench -- --only=1,4   only some measurements (1 in-turn, 2 delivery, 3 memory, 4 endpoint, 5 latency,
 *                                 6 the endpoint on a large database, SQLite and PostgreSQL: see bench/database.ts,
 *                                 7 delivery through a flaky endpoint)
 *   BENCH_DATABASES=sqlite npm run bench -- --only=6   measurement 6 on SQLite only (the PostgreSQL build takes longer)
 *   BENCH_RECORDS=1000000 npm run bench -- --only=6   measurement 6 on a million records (default 100,000; built once, then reused)
 *   BENCH_LATE_ONLY=1 npm run bench -- --only=6   of measurement 6, only a late record against an in-order one (issue 28)
 *   BENCH_CPU_PROF=1 npm run bench -- --only=2   also writes CPU profiles of the workers to bench/profiles/
 *                                               (summarize one: npx tsx bench/profile-summary.ts <file>)
 *
 * Writes bench/results.json (every round's raw figures, the summaries and the machine).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { USERS, userMessages } from './lib/bot.js';
import { buildWorkers } from './lib/build.js';
import { captureRequests } from './lib/capture.js';
import { paired, summarize, type Summary } from './lib/stats.js';
import { startWorker, type Worker } from './lib/worker.js';
import type { InTurnResult, InTurnSender } from './workers/in-turn.js';
import type { DeliveryResult, DeliverySender } from './workers/sender.js';
import type { LoadResult } from './workers/load.js';
import type { FaultMix, FlakyLog } from './workers/flaky-endpoint.js';
import type { FlakyRound } from './workers/flaky-sender.js';
import { measureDatabase } from './database.js';

const quick = process.argv.includes('--quick');
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = new Set((onlyArg?.slice('--only='.length) ?? '1,2,3,4,5,6,7').split(',').map(Number));

const CONFIG = quick
  ? {
      inTurn: { warmup: 1, rounds: 5, blocks: 10, blockTurns: 50 },
      delivery: { warmup: 1, rounds: 3, turns: 1000, singleUserTurns: 250, concurrency: USERS },
      memory: { repeats: 1, burstTurns: 5000, downRecords: 50_000, downCapAt: 20_000 },
      endpoint: { warmup: 1, rounds: 2, durationMs: 1000, concurrency: 32 },
      latency: { warmup: 1, rounds: 1, turns: 1200, users: 200, delaysMs: [0, 50, 150], socketCap: 256 },
      flaky: { warmup: 1, rounds: 1, records: 1000, users: 25 },
    }
  : {
      inTurn: { warmup: 2, rounds: 15, blocks: 20, blockTurns: 100 },
      delivery: { warmup: 1, rounds: 9, turns: 4000, singleUserTurns: 500, concurrency: USERS },
      memory: { repeats: 5, burstTurns: 20_000, downRecords: 200_000, downCapAt: 50_000 },
      endpoint: { warmup: 1, rounds: 5, durationMs: 2000, concurrency: 32 },
      latency: { warmup: 1, rounds: 3, turns: 3000, users: 200, delaysMs: [0, 50, 150], socketCap: 256 },
      flaky: { warmup: 1, rounds: 3, records: 1000, users: 25 },
    };

/** One line of the printed table. */
interface Row {
  section: string;
  figure: string;
  value: string;
  spread: string;
  target: string;
  pass?: boolean;
}

const rows: Row[] = [];
const results: Record<string, unknown> = {};
let phaseCounter = 1;
/** A fresh range of marker phases. */
function phases(n: number): number {
  const base = phaseCounter;
  phaseCounter += n;
  return base;
}

function fmt(x: number, digits = 1): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US');
  return x.toFixed(abs >= 100 ? 0 : digits);
}

function spread(s: Summary, digits = 1): string {
  return s.n > 1 ? `${fmt(s.q1, digits)}–${fmt(s.q3, digits)}` : '';
}

function row(section: string, figure: string, s: Summary | number, opts: { digits?: number; unit?: string; target?: string; pass?: boolean } = {}): void {
  const summary = typeof s === 'number' ? undefined : s;
  const value = summary === undefined ? (s as number) : summary.median;
  rows.push({
    section,
    figure,
    value: `${fmt(value, opts.digits)}${opts.unit ?? ''}`,
    spread: summary === undefined ? '' : spread(summary, opts.digits),
    target: opts.target ?? '',
    pass: opts.pass,
  });
}

function note(section: string, figure: string, value: string, target = '', pass?: boolean): void {
  rows.push({ section, figure, value, spread: '', target, pass });
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// 1. In-turn cost
// ---------------------------------------------------------------------------------------------

async function measureInTurn(sinkUrl: string): Promise<void> {
  const { warmup, rounds, blocks, blockTurns } = CONFIG.inTurn;
  log(`1. in-turn cost: ${warmup}+${rounds} rounds of ${blocks}×${blockTurns} turns per sender`);
  // Dashbot runs in a process of its own (with its own no-middleware control), so the requests
  // it holds open do not slow the other senders' turns.
  const main = await startWorker('in-turn');
  const dash = await startWorker('in-turn');
  await main.call('setup', { sinkUrl });
  await dash.call('setup', { sinkUrl });
  const mainSenders: InTurnSender[] = ['none', 'transcript', 'ours', 'oursSlow'];
  const dashSenders: InTurnSender[] = ['none', 'dashbot'];
  const raw: { main: Record<string, InTurnResult>; dash: Record<string, InTurnResult> }[] = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const a = await main.call<Record<string, InTurnResult>>('round', { senders: mainSenders, phase: phases(10), blocks, blockTurns });
    const b = await dash.call<Record<string, InTurnResult>>('round', { senders: dashSenders, phase: phases(10), blocks, blockTurns });
    if (r >= warmup) raw.push({ main: a, dash: b });
  }
  await main.stop();
  await dash.stop();

  const perTurnUs = (x: InTurnResult) => (x.ms * 1000) / x.turns;
  const series = (pick: (r: (typeof raw)[number]) => InTurnResult) => raw.map((r) => perTurnUs(pick(r)));
  const none = series((r) => r.main.none);
  const ours = series((r) => r.main.ours);
  const slow = series((r) => r.main.oursSlow);
  const transcript = series((r) => r.main.transcript);
  const dashNone = series((r) => r.dash.none);
  const dashbot = series((r) => r.dash.dashbot);
  const tps = (us: number[]) => summarize(us.map((u) => 1e6 / u));
  const added = (a: number[], b: number[]) => summarize(paired(a, b, (x, y) => x - y));
  const ratio = (a: number[], b: number[]) => summarize(paired(a, b, (x, y) => y / x));
  const lost = (pick: (r: (typeof raw)[number]) => InTurnResult) => raw.reduce((n, r) => n + pick(r).expected - pick(r).received, 0);

  const s = {
    noneTurnsPerSec: tps(none),
    oursAddedUs: added(ours, none),
    oursTurnsRatio: ratio(ours, none),
    slowAddedUs: added(slow, none),
    slowVsFast: summarize(paired(slow, ours, (x, y) => x / y)),
    transcriptAddedUs: added(transcript, none),
    dashbotAddedUs: added(dashbot, dashNone),
    dashbotTurnsRatio: ratio(dashbot, dashNone),
    dashNoneTurnsPerSec: tps(dashNone),
    dashbotTurnsPerSec: tps(dashbot),
    oursTurnsPerSec: tps(ours),
  };
  const oursLost = lost((r) => r.main.ours);
  const dashLost = lost((r) => r.dash.dashbot);
  results.inTurn = { config: CONFIG.inTurn, summaries: s, lost: { ours: oursLost, dashbot: dashLost }, rounds: raw };

  const S = '1 in-turn';
  row(S, 'echo bot, no middleware: turns/s', s.noneTurnsPerSec, { digits: 0 });
  row(S, '+ TrackingMiddleware: turns/s (× no middleware)', s.oursTurnsRatio, { digits: 2, unit: '×' });
  row(S, '+ TrackingMiddleware: µs added per turn', s.oursAddedUs, { unit: ' µs', target: '≤ 10 µs', pass: s.oursAddedUs.median <= 10 });
  row(S, '  … endpoint answering after 200 ms: µs added per turn', s.slowAddedUs, { unit: ' µs', target: '≤ 10 µs', pass: s.slowAddedUs.median <= 10 });
  row(S, '  … turn time, 200 ms endpoint ÷ fast endpoint', s.slowVsFast, { digits: 2, unit: '×', target: '1 ± 0.1 (unchanged)', pass: Math.abs(s.slowVsFast.median - 1) <= 0.1 });
  row(S, '+ TranscriptLoggerMiddleware (reference): µs added', s.transcriptAddedUs, { unit: ' µs' });
  row(S, '+ dashbot middleware: turns/s (× no middleware)', s.dashbotTurnsRatio, { digits: 2, unit: '×' });
  row(S, '+ dashbot middleware: µs added per turn', s.dashbotAddedUs, { unit: ' µs' });
  note(S, 'records lost (ours / dashbot)', `${oursLost} / ${dashLost}`, 'ours 0', oursLost === 0);
}

// ---------------------------------------------------------------------------------------------
// 2. Delivery cost
// ---------------------------------------------------------------------------------------------

async function measureDelivery(sink: Worker, sinkUrl: string): Promise<void> {
  const { warmup, rounds, turns, singleUserTurns, concurrency } = CONFIG.delivery;
  log(`2. delivery cost: ${warmup}+${rounds} rounds of ${turns} turns (${2 * turns} records) from ${USERS} users per sender`);
  const senders: DeliverySender[] = ['bare', 'oursLog', 'ours', 'dashbot', 'none'];
  const workers = new Map<DeliverySender, Worker>();
  for (const sender of senders) {
    const w = await startWorker('sender', [sender]);
    await w.call('setup', { sinkUrl, turns, users: USERS, singleUserTurns });
    workers.set(sender, w);
  }
  const raw: Record<string, DeliveryResult>[] = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const round: Record<string, DeliveryResult> = {};
    // Rotate the order so no sender always follows the same one.
    // Each sender replays the same records every round; the sink counts them in the phase set here.
    const run = async (sender: DeliverySender, users: number, inFlight: number) => {
      const phase = phases(1);
      await sink.call('phase', { phase });
      return workers.get(sender)!.call<DeliveryResult>('round', { phase, users, concurrency: inFlight });
    };
    for (let k = 0; k < senders.length; k++) {
      const sender = senders[(k + r) % senders.length];
      round[sender] = await run(sender, USERS, concurrency);
    }
    round.oursOneUser = await run('ours', 1, concurrency);
    round.bareOne = await run('bare', 1, 1);
    if (r >= warmup) raw.push(round);
  }
  await sink.call('phase', { phase: null });
  const oursStats = await workers.get('ours')!.call('stats');
  for (const w of workers.values()) await w.stop();

  const cpuPerRecord = (k: string) => raw.map((r) => (r[k].cpuMs * 1000) / r[k].records);
  /** CPU per record once the bot's own CPU for the same turns (sender `none`, same round) is taken off. */
  // The bot's own CPU per turn: the median over the run's rounds of the same turns without any
  // tracking. A round of them is short (about 60 ms), so one round's figure is too noisy to take
  // off another sender's round.
  const botUsPerTurn = summarize(raw.map((r) => (r.none.cpuMs * 1000) / r.none.turns)).median;
  const netCpuPerRecord = (k: string) => raw.map((r) => (r[k].cpuMs * 1000 - botUsPerTurn * r[k].turns) / r[k].records);
  const perSec = (k: string) => raw.map((r) => (r[k].records * 1000) / r[k].wallMs);
  const lost = (k: string) => raw.reduce((n, r) => n + r[k].records - r[k].received, 0);
  const sent = (k: string) => raw.reduce((n, r) => n + r[k].records, 0);
  const dup = (k: string) => raw.reduce((n, r) => n + r[k].requests - r[k].received, 0);
  const sockets = (k: string) => String(Math.max(...raw.map((r) => r[k].peakSockets)));
  const ratio = (k: string, base: string, f: (k: string) => number[]) => summarize(paired(f(k), f(base), (x, y) => x / y));

  const s = {
    bareCpuUs: summarize(cpuPerRecord('bare')),
    barePerSec: summarize(perSec('bare')),
    logCpuRatio: ratio('oursLog', 'bare', cpuPerRecord),
    logPerSecRatio: ratio('oursLog', 'bare', perSec),
    logCpuUs: summarize(cpuPerRecord('oursLog')),
    oursCpuRatio: ratio('ours', 'bare', cpuPerRecord),
    oursCpuUs: summarize(cpuPerRecord('ours')),
    botCpuUsPerTurn: summarize(raw.map((r) => (r.none.cpuMs * 1000) / r.none.turns)),
    oursNetCpuRatio: summarize(paired(netCpuPerRecord('ours'), cpuPerRecord('bare'), (x, y) => x / y)),
    dashNetCpuRatio: summarize(paired(netCpuPerRecord('dashbot'), cpuPerRecord('bare'), (x, y) => x / y)),
    oursPerSecRatio: ratio('ours', 'bare', perSec),
    oursPerSec: summarize(perSec('ours')),
    dashCpuRatio: ratio('dashbot', 'bare', cpuPerRecord),
    dashCpuUs: summarize(cpuPerRecord('dashbot')),
    dashPerSecRatio: ratio('dashbot', 'bare', perSec),
    dashPerSec: summarize(perSec('dashbot')),
    oneUserPerSec: summarize(perSec('oursOneUser')),
    bareOnePerSec: summarize(perSec('bareOne')),
    oneUserRatio: ratio('oursOneUser', 'bareOne', perSec),
    // What records/s the middleware path would reach if it cost nothing beyond the bare loop: the
    // bare loop's wall time plus the bot's own CPU for the same turns, per round.
    ceilingRatio: summarize(raw.map((r) => r.bare.wallMs / (r.bare.wallMs * (r.ours.records / r.bare.records) + (botUsPerTurn * r.ours.turns) / 1000))),
  };
  const lostOurs = lost('ours') + lost('oursLog') + lost('oursOneUser');
  results.delivery = {
    config: CONFIG.delivery,
    summaries: s,
    lost: { ours: lost('ours'), oursLog: lost('oursLog'), oursOneUser: lost('oursOneUser'), dashbot: lost('dashbot'), bare: lost('bare') },
    sent: { ours: sent('ours'), dashbot: sent('dashbot') },
    duplicates: { ours: dup('ours'), dashbot: dup('dashbot') },
    oursClientStats: oursStats,
    rounds: raw,
  };

  const S = '2 delivery';
  row(S, `bare node:http loop (${concurrency} in flight): CPU µs per record`, s.bareCpuUs, { unit: ' µs' });
  row(S, 'bare node:http loop: records/s', s.barePerSec, { digits: 0 });
  row(S, 'client.universal.logIncoming: CPU per record (× bare)', s.logCpuRatio, { digits: 2, unit: '×', target: '≤ 1.3×', pass: s.logCpuRatio.median <= 1.3 });
  row(S, 'echo bot alone (no tracking), same turns: CPU µs per turn', s.botCpuUsPerTurn, { unit: ' µs' });
  row(S, 'TrackingMiddleware path (bot’s own CPU taken off): CPU per record (× bare)', s.oursNetCpuRatio, { digits: 2, unit: '×', target: '≤ 1.3×', pass: s.oursNetCpuRatio.median <= 1.3 });
  row(S, 'TrackingMiddleware, turns included: CPU per record (× bare)', s.oursCpuRatio, { digits: 2, unit: '×' });
  row(S, 'TrackingMiddleware, turns included: records/s (× bare)', s.oursPerSecRatio, { digits: 2, unit: '×', target: '≥ 0.75×', pass: s.oursPerSecRatio.median >= 0.75 });
  row(S, '  … ceiling: bare loop time + the turns’ own time, as records/s (× bare)', s.ceilingRatio, { digits: 2, unit: '×' });
  row(S, 'dashbot middleware (bot’s own CPU taken off): CPU per record (× bare)', s.dashNetCpuRatio, { digits: 2, unit: '×' });
  row(S, 'dashbot middleware, turns included: CPU per record (× bare)', s.dashCpuRatio, { digits: 2, unit: '×' });
  row(S, 'dashbot middleware: records/s (× bare)', s.dashPerSecRatio, { digits: 2, unit: '×' });
  note(S, `records lost at the sink (ours / dashbot), of ${sent('ours')} each`, `${lostOurs} / ${lost('dashbot')}`, 'ours 0', lostOurs === 0);
  note(S, 'sockets used at most (bare / ours / logIncoming / dashbot)', ['bare', 'ours', 'oursLog', 'dashbot'].map(sockets).join(' / '));
  row(S, 'one user alone (order per user: 1 in flight): records/s', s.oneUserPerSec, { digits: 0 });
  row(S, '  … × bare loop with 1 in flight (the round trip)', s.oneUserRatio, { digits: 2, unit: '×' });
}

// ---------------------------------------------------------------------------------------------
// 3. Memory
// ---------------------------------------------------------------------------------------------

interface BurstResult {
  baselineMb: number;
  peakMb: number;
  growthMb: number;
  records: number;
  received: number;
  dropped: number;
  turnsMs: number;
  ms: number;
}

interface DownResult {
  baselineMb: number;
  growthMb: number;
  capAt: number;
  queuedAtCap: number;
  atCapMb: number;
  afterCapMb: number;
  heapAfterCapMb: number;
  logged: number;
  loggedMs: number;
  stats: { delivered: number; dropped: number; failed: number; queued: number; inFlight: number };
  abandoned: number;
  resolved: number;
  rejections: Record<string, number>;
  reported: Record<string, number>;
}

async function measureMemory(sinkUrl: string): Promise<void> {
  const { repeats, burstTurns, downRecords, downCapAt } = CONFIG.memory;
  log(`3. memory: burst of ${burstTurns} turns, each sender in a fresh process, ${repeats}×; then ${downRecords} records with the endpoint down`);
  const kinds = [
    { key: 'none', sender: 'none' },
    { key: 'ours', sender: 'ours' },
    { key: 'oursHoldAll', sender: 'ours', maxQueueSize: 4 * burstTurns },
    { key: 'dashbot', sender: 'dashbot' },
    { key: 'bare', sender: 'bare' },
  ] as const;
  const raw: Record<string, BurstResult[]> = {};
  for (let r = 0; r < repeats; r++) {
    for (const kind of kinds) {
      const w = await startWorker('memory');
      const result = await w.call<BurstResult>('burst', { sender: kind.sender, sinkUrl, phase: phases(2), turns: burstTurns, users: USERS, maxQueueSize: 'maxQueueSize' in kind ? kind.maxQueueSize : undefined });
      await w.stop();
      (raw[kind.key] ??= []).push(result);
    }
  }
  const growth = (k: string) => raw[k].map((x) => x.growthMb);
  const s = {
    none: summarize(growth('none')),
    ours: summarize(growth('ours')),
    oursHoldAll: summarize(growth('oursHoldAll')),
    dashbot: summarize(growth('dashbot')),
    bare: summarize(growth('bare')),
  };
  // Growth beyond the bot alone, as a share of dashbot's, from the medians (a ratio of per-run
  // differences would mostly measure when V8 happened to collect garbage). Spread: the sender's quartiles.
  const beyond = (k: 'ours' | 'oursHoldAll' | 'bare'): Summary => {
    const base = s.none.median;
    const dash = s.dashbot.median - base;
    const f = (x: number) => (x - base) / dash;
    return { median: f(s[k].median), q1: f(s[k].q1), q3: f(s[k].q3), min: f(s[k].min), max: f(s[k].max), n: s[k].n };
  };
  const ratios = { oursRatio: beyond('ours'), oursHoldAllRatio: beyond('oursHoldAll'), bareRatio: beyond('bare') };
  const median = (k: string, f: (x: BurstResult) => number) => summarize(raw[k].map(f)).median;

  const w = await startWorker('memory');
  const down = await w.call<DownResult>('down', { records: downRecords, batch: 1000, capAt: downCapAt });
  await w.stop();
  const r = await startWorker('memory');
  const held = await r.call<{ records: number; bytesPerRecord: number; heapPerRecord: number; buffersPerRecord: number }>('retained', { turns: 5000 });
  await r.stop();
  const rejected = Object.values(down.rejections).reduce((a, b) => a + b, 0);
  // stats.failed counts the records given up at close()'s deadline too (`abandoned`).
  const accounted = down.stats.delivered + down.stats.dropped + down.stats.failed;
  const slower = summarize(paired(raw.dashbot.map((x) => x.turnsMs), raw.ours.map((x) => x.turnsMs), (x, y) => x / y));
  results.memory = { config: CONFIG.memory, summaries: { ...s, ...ratios, dashbotBurstSlower: slower }, bursts: raw, down, retainedPerQueuedRecord: held };

  const S = '3 memory';
  const records = 2 * burstTurns;
  row(S, `burst of ${burstTurns} turns, echo bot alone: peak RSS growth`, s.none, { unit: ' MB', digits: 0 });
  row(S, `+ dashbot: peak RSS growth (no drop; the burst's turns take longer)`, s.dashbot, { unit: ' MB', digits: 0 });
  row(S, '  … dashbot’s burst duration ÷ ours', slower, { digits: 1, unit: '×' });
  row(S, '+ bare node:http loop sending the same records (made beforehand): peak RSS growth', s.bare, { unit: ' MB', digits: 0 });
  row(S, '  … growth beyond the bot alone (× dashbot’s)', ratios.bareRatio, { digits: 2, unit: '×' });
  row(S, `+ TrackingMiddleware, maxQueueSize ${4 * burstTurns}: peak RSS growth`, s.oursHoldAll, { unit: ' MB', digits: 0 });
  row(S, '  … growth beyond the bot alone (× dashbot’s)', ratios.oursHoldAllRatio, { digits: 2, unit: '×', target: '≤ 0.25×', pass: ratios.oursHoldAllRatio.median <= 0.25 });
  row(S, '+ TrackingMiddleware, default maxQueueSize 10,000: peak RSS growth', s.ours, { unit: ' MB', digits: 0 });
  row(S, '  … growth beyond the bot alone (× dashbot’s)', ratios.oursRatio, { digits: 2, unit: '×', target: '≤ 0.25×', pass: ratios.oursRatio.median <= 0.25 });
  note(S, '  … records dropped at the queue cap (counted, reported)', `${fmt(median('ours', (x) => x.dropped), 0)} of ${records}`);
  note(S, 'records lost (dashbot / ours holding all)', `${fmt(median('dashbot', (x) => x.records - x.received), 0)} / ${fmt(median('oursHoldAll', (x) => x.records - x.received), 0)}`);
  note(S, 'memory one queued record holds (TrackingMiddleware, after GC): heap + body bytes', `${fmt(held.heapPerRecord, 0)} + ${fmt(held.buffersPerRecord, 0)} bytes`);
  const after = downRecords - downCapAt;
  row(S, `endpoint down, ${downCapAt} records logged (${down.queuedAtCap} queued, the cap; the rest dropped): RSS growth`, down.atCapMb, { unit: ' MB', digits: 0 });
  row(S, `  … ${after} more records, every one dropped: peak RSS growth beyond that`, down.afterCapMb, { unit: ' MB', digits: 1, target: '≤ 5 MB (flat)', pass: down.afterCapMb <= 5 });
  row(S, '  … heap held after a full GC, beyond what it held at that point', down.heapAfterCapMb, { unit: ' MB', digits: 2, target: '≤ 1 MB (flat)', pass: down.heapAfterCapMb <= 1 });
  note(
    S,
    '  … every record accounted for: dropped (queue full) + given up = logged',
    `${down.stats.dropped} + ${down.stats.failed} = ${accounted}`,
    `= ${downRecords}, all rejected`,
    accounted === downRecords && rejected === downRecords && down.resolved === 0,
  );
}

// ---------------------------------------------------------------------------------------------
// 4. The local endpoint
// ---------------------------------------------------------------------------------------------

async function measureEndpoint(): Promise<void> {
  const { warmup, rounds, durationMs, concurrency } = CONFIG.endpoint;
  log(`4. local endpoint: ${warmup}+${rounds} rounds of ${durationMs} ms per server, ${concurrency} keep-alive connections`);
  const captured = await captureRequests('http://x', userMessages(0, 500));
  const requests = captured.map((r) => {
    const u = new URL(r.url);
    return { path: `${u.pathname}${u.search}`, body: r.body };
  });
  const servers = { sink: await startWorker('server', ['sink']), endpoint: await startWorker('server', ['endpoint']) };
  const urls = { sink: await servers.sink.call<string>('url'), endpoint: await servers.endpoint.call<string>('url') };
  const load = await startWorker('load');
  const raw: { sink: LoadResult; endpoint: LoadResult }[] = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const order = r % 2 === 0 ? (['sink', 'endpoint'] as const) : (['endpoint', 'sink'] as const);
    const round = {} as { sink: LoadResult; endpoint: LoadResult };
    for (const which of order) round[which] = await load.call<LoadResult>('run', { baseUrl: urls[which], requests, concurrency, durationMs });
    if (r >= warmup) raw.push(round);
  }
  const views = await servers.endpoint.call<{ waitedMs: number; records: number; stored: number }>('views');
  const stored = await servers.endpoint.call<number>('count');
  const dataFileBytes = await servers.endpoint.call<number>('dataFileBytes');
  await load.stop();
  await servers.sink.stop();
  await servers.endpoint.stop();

  const perSec = (k: 'sink' | 'endpoint') => raw.map((r) => (r[k].ok * 1000) / r[k].ms);
  const s = {
    sink: summarize(perSec('sink')),
    endpoint: summarize(perSec('endpoint')),
    ratio: summarize(paired(perSec('endpoint'), perSec('sink'), (x, y) => x / y)),
  };
  const refused = raw.reduce((n, r) => n + r.endpoint.requests - r.endpoint.ok, 0);
  results.endpoint = { config: CONFIG.endpoint, summaries: s, stored, dataFileBytes, views, rounds: raw };

  const S = '4 endpoint';
  row(S, `bare node:http sink: requests/s (${concurrency} connections)`, s.sink, { digits: 0 });
  row(S, 'local endpoint, validation + SQLite store (acknowledged once the record is committed): requests/s', s.endpoint, { digits: 0 });
  row(S, '  … × bare sink', s.ratio, { digits: 2, unit: '×', target: '≥ 0.5×', pass: s.ratio.median >= 0.5 });
  note(S, '  … requests not answered 2xx', String(refused), '0', refused === 0);
  note(S, '  … a read right after the last round: waited for the views to catch up', `${fmt(views.waitedMs, 0)} ms`);
  note(S, '  … records the views count (summary) = records stored', `${views.records.toLocaleString('en-US')} = ${views.stored.toLocaleString('en-US')}`, 'equal', views.records === views.stored);
}

// ---------------------------------------------------------------------------------------------
// 5. Delivery at real-world latency
// ---------------------------------------------------------------------------------------------

async function measureLatency(sink: Worker, sinkUrl: string): Promise<void> {
  const { warmup, rounds, turns, users, delaysMs, socketCap } = CONFIG.latency;
  log(`5. latency: an endpoint ${delaysMs.join(', ')} ms away, ${turns} turns (${2 * turns} records) from ${users} users, ${warmup}+${rounds} round(s) per sender`);
  const senders: DeliverySender[] = ['ours', 'dashbot'];
  const raw: Record<string, Record<DeliverySender, DeliveryResult>[]> = {};
  for (const delay of delaysMs) {
    const workers = new Map<DeliverySender, Worker>();
    for (const sender of senders) {
      const w = await startWorker('sender', [sender]);
      await w.call('setup', { sinkUrl: `${sinkUrl}/delay/${delay}`, turns, users, singleUserTurns: 1 });
      workers.set(sender, w);
    }
    // A warm-up round per delay, not counted: the senders' code is compiled, their sockets and the
    // concurrency window are built up, as in every other section.
    for (let r = 0; r < warmup + rounds; r++) {
      const round = {} as Record<DeliverySender, DeliveryResult>;
      for (let k = 0; k < senders.length; k++) {
        const sender = senders[(k + r) % senders.length];
        const phase = phases(1);
        await sink.call('phase', { phase });
        round[sender] = await workers.get(sender)!.call<DeliveryResult>('round', { phase, users, concurrency: 0 });
      }
      if (r >= warmup) (raw[delay] ??= []).push(round);
    }
    await sink.call('phase', { phase: null });
    for (const w of workers.values()) await w.stop();
  }
  results.latency = { config: CONFIG.latency, rounds: raw };

  const S = '5 latency';
  for (const delay of delaysMs) {
    const perSec = (k: DeliverySender) => raw[delay].map((r) => (r[k].records * 1000) / r[k].wallMs);
    const sockets = (k: DeliverySender) => Math.max(...raw[delay].map((r) => r[k].peakSockets));
    const lost = (k: DeliverySender) => raw[delay].reduce((n, r) => n + r[k].records - r[k].received, 0);
    const ours = summarize(perSec('ours'));
    const dash = summarize(perSec('dashbot'));
    const vsDash = summarize(paired(perSec('ours'), perSec('dashbot'), (x, y) => x / y));
    const where = delay === 0 ? 'loopback' : `${delay} ms away`;
    row(S, `endpoint ${where}, ${users} users: ours records/s (${sockets('ours')} sockets)`, ours, { digits: 0 });
    row(S, `  … dashbot records/s (${sockets('dashbot')} sockets)`, dash, { digits: 0 });
    row(S, '  … ours × dashbot', vsDash, { digits: 2, unit: '×', target: '≥ 1×', pass: vsDash.median >= 1 });
    if (delay > 0) {
      // One user's records go one at a time: at most min(users, sockets) requests are in flight, each taking a round trip.
      const limit = (Math.min(users, socketCap) * 1000) / delay;
      const vsLimit = summarize(perSec('ours').map((x) => x / limit));
      row(S, `  … ours × the limit min(users, sockets) / RTT = ${fmt(limit, 0)}/s`, vsLimit, { digits: 2, unit: '×', target: '≥ 0.8×', pass: vsLimit.median >= 0.8 });
      // Little's law: records/s × round trip = requests in flight on average. Dashbot sends each
      // record at once, on a socket of its own, in no order; ours keeps one request in flight per
      // user (each user's order) on at most `socketCap` sockets, so it cannot pass the limit above.
      note(S, '  … requests in flight on average (records/s × RTT): dashbot / ours at most', `${fmt((dash.median * delay) / 1000, 0)} / ${Math.min(users, socketCap)}`);
    }
    note(S, '  … sockets used (ours / dashbot)', `${sockets('ours')} / ${sockets('dashbot')}`, 'ours ≤ 256', sockets('ours') <= socketCap);
    note(S, '  … records lost (ours / dashbot)', `${lost('ours')} / ${lost('dashbot')}`, 'ours 0', lost('ours') === 0);
  }
}

// ---------------------------------------------------------------------------------------------
// 7. Delivery through a flaky endpoint
// ---------------------------------------------------------------------------------------------

/** The issue's mix (#29): 12% HTTP 500, 4% 503, 3% 429 (Retry-After: 1), 4% connection resets, 5% slow (300 ms) answers. */
const ISSUE_MIX: FaultMix = { status500: 0.12, status503: 0.04, status429: 0.03, reset: 0.04, slow: 0.05, slowMs: 300 };
/** Only isolated failures: 8% HTTP 500 and 8% connection resets. */
const ISOLATED_MIX: FaultMix = { status500: 0.08, reset: 0.08 };
/** The client's default backoff (initialBackoffMs, maxBackoffMs) and the mix's Retry-After, in ms. */
const BACKOFF = { initialMs: 250, maxMs: 5_000, retryAfterMs: 1_000 };

/**
 * The fastest a run can be while each user's records go one after another: the longest lane, each
 * of its requests taking `baseMs` (the fault-free run's time per record of a lane), a slow answer
 * its `slowMs`, and each failure its backoff or its Retry-After, whichever is longer. The backoff
 * is its shortest: jitter makes it half to all of `initialBackoffMs × 2^(retry − 1)` (capped), and
 * half is what the limit counts, so that no run can beat it but by luck of the base time.
 */
function laneLimitMs(requests: FlakyLog['requests'], baseMs: number, slowMs: number): number {
  const lanes = new Map<string, { ms: number; retry: number }>();
  for (const { user, fault } of requests) {
    let lane = lanes.get(user);
    if (lane === undefined) lanes.set(user, (lane = { ms: 0, retry: 0 }));
    if (fault === 'ok' || fault === 'slow') {
      lane.ms += fault === 'slow' ? Math.max(baseMs, slowMs) : baseMs;
      lane.retry = 0;
      continue;
    }
    lane.retry++;
    const backoff = 0.5 * Math.min(BACKOFF.maxMs, BACKOFF.initialMs * 2 ** (lane.retry - 1));
    lane.ms += baseMs + (fault === '429' ? Math.max(BACKOFF.retryAfterMs, backoff) : backoff);
  }
  return Math.max(...[...lanes.values()].map((lane) => lane.ms));
}

async function measureFlaky(): Promise<void> {
  const { warmup, rounds, records, users } = CONFIG.flaky;
  log(`7. flaky endpoint: ${records} records from ${users} users, awaiting flush(), fault-free / the issue's mix / 16% 500s and resets, ${warmup}+${rounds} round(s)`);
  const endpoint = await startWorker('flaky-endpoint');
  const sender = await startWorker('flaky-sender');
  const url = await endpoint.call<string>('url');
  const kinds = { clean: {}, issue: ISSUE_MIX, isolated: ISOLATED_MIX } as const;
  type Kind = keyof typeof kinds;
  const raw: Record<Kind, { round: FlakyRound; log: FlakyLog }>[] = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const round = {} as Record<Kind, { round: FlakyRound; log: FlakyLog }>;
    for (const kind of Object.keys(kinds) as Kind[]) {
      await endpoint.call('round', { mix: kinds[kind], seed: 29 + r });
      const result = await sender.call<FlakyRound>('round', { url, records, users });
      round[kind] = { round: result, log: await endpoint.call<FlakyLog>('log') };
    }
    if (r >= warmup) raw.push(round);
  }
  await sender.stop();
  await endpoint.stop();

  const perSec = (kind: Kind) => raw.map((r) => (records * 1000) / r[kind].round.wallMs);
  /** The per-user-order limit of each round, as records/s, with the same round's fault-free time per record of a lane. */
  const limitPerSec = (kind: Kind) =>
    raw.map((r) => {
      const baseMs = (r.clean.round.wallMs * users) / records;
      return (records * 1000) / laneLimitMs(r[kind].log.requests, baseMs, kinds[kind] === ISSUE_MIX ? ISSUE_MIX.slowMs! : 0);
    });
  const S = '7 flaky';
  row(S, `fault-free endpoint, ${records} records, ${users} users, await flush(): records/s`, summarize(perSec('clean')), { digits: 0 });
  const summaries: Record<string, unknown> = {};
  for (const [kind, name] of [
    ['issue', '12% 500, 4% 503, 3% 429 (Retry-After 1 s), 4% resets, 5% slow (300 ms)'],
    ['isolated', '8% 500, 8% resets (isolated failures only)'],
  ] as const) {
    const vsClean = summarize(paired(perSec(kind), perSec('clean'), (x, y) => x / y));
    const limit = summarize(limitPerSec(kind));
    const vsLimit = summarize(paired(perSec(kind), limitPerSec(kind), (x, y) => x / y));
    const lost = raw.reduce((n, r) => n + records - r[kind].log.acknowledged, 0);
    const givenUp = raw.reduce((n, r) => n + r[kind].round.givenUp, 0);
    summaries[kind] = { perSec: summarize(perSec(kind)), vsClean, limit, vsLimit, lost, givenUp };
    row(S, `${name}: records/s`, summarize(perSec(kind)), { digits: 0 });
    row(S, '  … × fault-free', vsClean, { digits: 2, unit: '×' });
    row(S, '  … the per-user-order limit (each user’s records one after another, each fault its backoff or Retry-After): records/s', limit, { digits: 0 });
    row(S, '  … × that limit', vsLimit, { digits: 2, unit: '×', target: '≥ 0.8×', pass: vsLimit.median >= 0.8 });
    note(S, '  … records not delivered (given up / never acknowledged)', `${givenUp} / ${lost}`, '0', lost === 0 && givenUp === 0);
  }
  results.flaky = { config: CONFIG.flaky, mixes: kinds, backoff: BACKOFF, summaries, rounds: raw.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { ...v.round, requests: v.log.requests.length, acknowledged: v.log.acknowledged }]))) };
}

// ---------------------------------------------------------------------------------------------

function printTable(): void {
  const headers = ['', 'figure', 'median', 'IQR', 'target', ''];
  const lines = rows.map((r) => [r.section, r.figure, r.value, r.spread, r.target, r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL']);
  const widths = headers.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmtLine = (l: string[]) => l.map((c, i) => (i === 2 || i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  console.log(fmtLine(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  let last = '';
  for (const l of lines) {
    const section = l[0] === last ? '' : l[0];
    last = l[0];
    console.log(fmtLine([section, ...l.slice(1)]));
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverageAtStart: os.loadavg(),
  };
  log(`${quick ? 'quick' : 'full'} run on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, load ${machine.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}`);
  log('building the workers (tsup, as the package is built)');
  await buildWorkers(['sink', 'in-turn', 'sender', 'memory', 'load']);
  if (only.has(4)) {
    try {
      await buildWorkers(['server']);
    } catch (error) {
      only.delete(4);
      log(`4. skipped: the local endpoint (src/endpoint) does not build: ${(error as Error).message}`);
    }
  }
  if (only.has(6)) await buildWorkers(['database', 'serve']);
  if (only.has(7)) await buildWorkers(['flaky-endpoint', 'flaky-sender']);
  const needsSink = [1, 2, 3, 5].some((m) => only.has(m));
  const sink = needsSink ? await startWorker('sink') : undefined;
  const sinkUrl = sink === undefined ? '' : await sink.call<string>('url');
  try {
    if (only.has(1)) await measureInTurn(sinkUrl);
    if (only.has(2)) await measureDelivery(sink!, sinkUrl);
    if (only.has(3)) await measureMemory(sinkUrl);
    if (only.has(4)) await measureEndpoint();
    if (only.has(5)) await measureLatency(sink!, sinkUrl);
    if (only.has(6)) await measureDatabase({ quick, log, note, results });
    if (only.has(7)) await measureFlaky();
  } finally {
    await sink?.stop();
  }
  const durationS = (Date.now() - started) / 1000;
  printTable();
  const failed = rows.filter((r) => r.pass === false).length;
  const loadAtEnd = os.loadavg();
  console.log(
    `\n${rows.filter((r) => r.pass !== undefined).length - failed} targets passed, ${failed} missed. ` +
      `Medians of ${quick ? 'a quick run' : 'one run'} on one machine (${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}); IQR = middle half of the rounds. ${durationS.toFixed(0)} s; ` +
      `load average ${machine.loadAverageAtStart[0].toFixed(1)} at the start, ${loadAtEnd[0].toFixed(1)} at the end (other work on the machine).`,
  );
  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify({ quick, machine: { ...machine, loadAverageAtEnd: loadAtEnd }, startedAt: new Date(started).toISOString(), durationS, table: rows, ...results }, null, 2)}\n`);
  log(`wrote ${file}`);
}

await main();
