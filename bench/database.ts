/**
 * Measurement 6 of `npm run bench`: the endpoint on a large database (100,000 records by default;
 * `BENCH_RECORDS=1000000` for a million). Builds the database once per size, dataset version and
 * database (a SQLite file under bench/.data/, a database of its own on the PostgreSQL server) with
 * the store's own code, then starts `serve` on it as users do and measures: start time, memory
 * (RSS), the p95 time of each view of the read API, with and without a date range and a bot
 * filter, and the cost of a late record against an in-order one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BIG_BOT_KEY, DATASET_VERSION, END, SMALL_BOT_KEY } from './lib/million.js';
import { BUILD_DIR } from './lib/paths.js';
import { summarize } from './lib/stats.js';
import { startWorker } from './lib/worker.js';

/** What the orchestrator lends this measurement. */
export interface BenchContext {
  quick: boolean;
  log(message: string): void;
  note(section: string, figure: string, value: string, target?: string, pass?: boolean): void;
  results: Record<string, unknown>;
}

const DATA_DIR = fileURLToPath(new URL('./.data/', import.meta.url));
const SERVER = process.env.TRACKING_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DAY = 86_400_000;

/** The built database of `count` records: a SQLite file under bench/.data/ (git-ignored), or a PostgreSQL database of the server, named by the dataset's version. */
const sqliteFile = (count: number) => `${DATA_DIR}dataset-v${DATASET_VERSION}-${count}.db`;
const postgresName = (count: number) => `tracking_bench_v${DATASET_VERSION}_${count}`;

/** Records in the database of measurement 6: 100,000, or `BENCH_RECORDS` (1000000 for the million of the issues' goals). */
export function benchRecords(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.BENCH_RECORDS;
  if (value === undefined || value === '') return 100_000;
  const count = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(count) || count < 10_000) throw new Error(`BENCH_RECORDS: expected a whole number of records, at least 10000, but got ${JSON.stringify(value)}`);
  return count;
}

/**
 * The views asked, each the ways the page offers (all time, the last 7 and 30 days, one bot, a
 * platform, a channel); the p95 is over all of them. Every record of the dataset is on `twitter`,
 * so `platform=twitter` matches everything and `platform=universal` nothing (a filter that finds
 * little must not read everything to say so).
 */
function views(recentUser: string): Record<string, string[]> {
  const last = (days: number) => `from=${new Date(END - days * DAY).toISOString().slice(0, 10)}&to=${new Date(END + DAY).toISOString().slice(0, 10)}`;
  const ways = ['', last(7), last(30), 'bot=pizza', `bot=pizza&${last(30)}`, 'platform=twitter', 'platform=universal', 'channel=msteams', `channel=msteams&${last(7)}`];
  const each = (path: string) => ways.map((q) => `${path}${path.includes('?') ? '&' : '?'}${q}`);
  return {
    summary: each('/api/summary'),
    timeseries: [...each('/api/timeseries?bucket=day'), ...each('/api/timeseries?bucket=hour'), '/api/timeseries?bucket=minute'],
    // user-0 is the most active user of the long tail; the others are ordinary ones.
    transcript: ['/api/transcript?user=user-0', '/api/transcript?user=user-0&limit=200', '/api/transcript?user=user-1', `/api/transcript?user=${recentUser}`, '/api/transcript?user=user-77'],
    users: each('/api/users?limit=100'),
    conversations: each('/api/conversations?limit=100'),
    intents: each('/api/intents'),
    'active users (day, week, month)': [...each('/api/analytics/active-users?interval=day'), ...each('/api/analytics/active-users?interval=week'), ...each('/api/analytics/active-users?interval=month')],
    retention: each('/api/analytics/retention'),
    sessions: each('/api/analytics/sessions'),
    paths: each('/api/analytics/paths'),
    funnel: each('/api/analytics/funnel?steps=Greet,OrderPizza,event:purchase'),
    'top messages': each('/api/analytics/messages'),
    'unhandled messages': each('/api/analytics/messages?unhandled=true'),
    buttons: each('/api/analytics/buttons'),
    feedback: each('/api/analytics/feedback'),
    revenue: each('/api/analytics/revenue'),
    search: [...each('/api/search?q=refund'), '/api/search?user=User%2033'],
  };
}

/** Starts `serve` on `database` and resolves once it listens, with how long that took. */
async function serveOn(database: string): Promise<{ url: string; child: ChildProcess; startMs: number }> {
  const started = performance.now();
  const args = [`${BUILD_DIR}serve.mjs`, 'serve', '--port', '0', '--key', `pizza=${BIG_BOT_KEY}`, '--key', `support=${SMALL_BOT_KEY}`, database.startsWith('postgres') ? '--database' : '--data', database];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TRACKING_API_KEY: '', TRACKING_API_KEYS: '', TRACKING_DATABASE_URL: '' } });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { url, child, startMs: performance.now() - started };
}

/** The process's resident memory now and at its peak, in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function timeGet(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

async function ensurePostgresDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  try {
    const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length === 0) await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Builds the database of `count` records if needed (for `BENCH_LATE_ONLY=1`, which measures late records only). */
async function prepareOnly(context: BenchContext, kind: 'SQLite' | 'PostgreSQL', count: number): Promise<void> {
  const database = kind === 'SQLite' ? sqliteFile(count) : await ensurePostgresDatabase(postgresName(count));
  const builder = await startWorker('database');
  context.log(`6. ${kind}: preparing ${count.toLocaleString('en-US')} records (built once, then reused)`);
  await builder.call('prepare', { database, count });
  await builder.stop();
}

/** Measures one database: builds it if needed, starts serve, asks every view. */
async function measureOne(context: BenchContext, kind: 'SQLite' | 'PostgreSQL', count: number): Promise<void> {
  const S = `6 ${kind} ${count >= 1_000_000 ? `${count / 1_000_000}M` : `${count / 1000}k`}`;
  const database = kind === 'SQLite' ? sqliteFile(count) : await ensurePostgresDatabase(postgresName(count));
  const builder = await startWorker('database');
  context.log(`6. ${kind}: preparing ${count.toLocaleString('en-US')} records (built once, then reused)`);
  const prepared = await builder.call<{ records: number; seconds: number; built: boolean }>('prepare', { database, count });
  await builder.stop();
  if (prepared.built) context.note(S, 'records written by the store\'s code (one-time build)', `${prepared.records.toLocaleString('en-US')} in ${prepared.seconds.toFixed(0)} s (${Math.round(prepared.records / prepared.seconds).toLocaleString('en-US')}/s)`);

  const starts: number[] = [];
  let served = await serveOn(database);
  starts.push(served.startMs);
  for (let i = 0; i < (context.quick ? 1 : 2); i++) {
    served.child.kill('SIGTERM');
    await new Promise((resolve) => served.child.once('exit', resolve));
    served = await serveOn(database);
    starts.push(served.startMs);
  }
  const { url, child } = served;
  try {
    const afterStart = memoryOf(child.pid!);
    const heavy = (await (await fetch(`${url}/api/users?limit=1`)).json()) as { users: { userId: string }[] };
    const all = views(heavy.users[0]?.userId ?? 'user-0');
    const rounds = context.quick ? 3 : 6;
    const timings: Record<string, number[]> = {};
    const byPath: Record<string, number[]> = {};
    // A warm-up round, not counted: a running endpoint answers from warm caches (the database's
    // pages in memory, the query plans prepared), as after its first minutes.
    for (const paths of Object.values(all)) for (const path of paths) await timeGet(`${url}${path}`);
    for (let round = 0; round < rounds; round++) {
      for (const [name, paths] of Object.entries(all)) {
        for (const path of paths) {
          const ms = await timeGet(`${url}${path}`);
          (timings[name] ??= []).push(ms);
          (byPath[path] ??= []).push(ms);
        }
      }
    }
    const memory = memoryOf(child.pid!);
    const startTime = summarize(starts);
    context.note(S, 'serve: start time (to listening)', `${Math.round(startTime.median)} ms`, '< 2000 ms', startTime.median < 2000);
    context.note(S, 'serve: RSS after start / after all the queries (peak)', `${afterStart.rss.toFixed(0)} / ${memory.rss.toFixed(0)} MB (${memory.peak.toFixed(0)})`, '< 150 MB', memory.peak < 150);
    const p95s: Record<string, number> = {};
    // Which way of asking each view was slowest (by its median): what to look at when a p95 misses.
    const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    const slowest: Record<string, { path: string; medianMs: number }> = {};
    for (const [name, paths] of Object.entries(all)) {
      const worst = paths.map((path) => ({ path, medianMs: Math.round(median(byPath[path]) * 10) / 10 })).sort((a, b) => b.medianMs - a.medianMs)[0];
      slowest[name] = worst;
      context.log(`6. ${kind}: ${name}, slowest way: ${worst.path} (median ${worst.medianMs} ms)`);
    }
    for (const [name, times] of Object.entries(timings)) {
      const sorted = [...times].sort((a, b) => a - b);
      const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
      p95s[name] = p95;
      const goal = ['summary', 'timeseries', 'transcript'].includes(name) ? 100 : 200;
      context.note(S, `p95 ${name} (${sorted.length} queries)`, `${p95.toFixed(1)} ms`, `< ${goal} ms`, p95 < goal);
    }
    context.results[`database-${kind}-${count}`] = { database: kind === 'SQLite' ? database : database.replace(/\/\/[^@]*@/, '//'), prepared, starts, afterStart, memory, p95s, slowest, byPath };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/**
 * The cost of a late record against an in-order one (issue 28), on a copy of the database built
 * for `count` records (a SQLite file copied; a PostgreSQL database made from it as a template),
 * dropped afterwards. Goal: a late record costs at most twice an in-order one.
 */
async function measureLate(context: BenchContext, kind: 'SQLite' | 'PostgreSQL', count: number): Promise<void> {
  const S = `6 ${kind} ${count >= 1_000_000 ? `${count / 1_000_000}M` : `${count / 1000}k`}`;
  const source = kind === 'SQLite' ? sqliteFile(count) : postgresName(count);
  let copy: string;
  let drop: () => Promise<void>;
  if (kind === 'SQLite') {
    copy = `${DATA_DIR}late-${count}.db`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
    copyFileSync(source, copy);
    drop = async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
    };
  } else {
    const name = `tracking_bench_late_${count}`;
    const admin = new pg.Client({ connectionString: SERVER });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name} template ${source}`);
    } finally {
      await admin.end();
    }
    const url = new URL(SERVER);
    url.pathname = `/${name}`;
    copy = url.toString();
    drop = async () => {
      const again = new pg.Client({ connectionString: SERVER });
      await again.connect();
      try {
        await again.query(`drop database if exists ${name}`);
      } finally {
        await again.end();
      }
    };
  }
  try {
    const worker = await startWorker('database');
    const rounds = context.quick ? 10 : 100;
    context.log(`6. ${kind}: a late record against an in-order one, ${rounds} of each`);
    const { inOrder, late, inOrderCpu, lateCpu, historyEntries } = await worker.call<{ inOrder: number[]; late: number[]; inOrderCpu: number[]; lateCpu: number[]; historyEntries: number }>('late', { database: copy, rounds });
    await worker.stop();
    const a = summarize(inOrder);
    const b = summarize(late);
    const ratio = b.median / a.median;
    const cpuA = summarize(inOrderCpu);
    const cpuB = summarize(lateCpu);
    const cpuRatio = cpuB.median / cpuA.median;
    context.note(S, 'a record in order: append to in the views (median, IQR)', `${a.median.toFixed(1)} ms (${a.q1.toFixed(1)}–${a.q3.toFixed(1)})`);
    context.note(S, 'a record days late (re-derives its sessions): append to in the views', `${b.median.toFixed(1)} ms (${b.q1.toFixed(1)}–${b.q3.toFixed(1)})`);
    context.note(S, 'a late record ÷ an in-order one', `${ratio.toFixed(2)}×`, '≤ 2×', ratio <= 2);
    // The same in CPU time of the process (user + system): what a busy machine's waits for a core leave out.
    context.note(S, '… the same in CPU time: in order / late (median)', `${cpuA.median.toFixed(2)} / ${cpuB.median.toFixed(2)} ms = ${cpuRatio.toFixed(2)}×`);
    context.results[`late-${kind}-${count}`] = { inOrder, late, inOrderCpu, lateCpu, ratio, cpuRatio, historyEntries };
  } finally {
    await drop();
  }
}

/**
 * Measurement 6: both databases at the benchmark's size, or only those named in
 * `BENCH_DATABASES` (`sqlite`, `postgres`, comma-separated).
 */
export async function measureDatabase(context: BenchContext): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  const count = benchRecords();
  const chosen = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',').map((name) => name.trim().toLowerCase());
  const lateOnly = process.env.BENCH_LATE_ONLY === '1';
  if (chosen.includes('sqlite')) {
    if (!lateOnly) await measureOne(context, 'SQLite', count);
    else await prepareOnly(context, 'SQLite', count);
    await measureLate(context, 'SQLite', count);
  }
  if (chosen.includes('postgres')) {
    if (!lateOnly) await measureOne(context, 'PostgreSQL', count);
    else await prepareOnly(context, 'PostgreSQL', count);
    await measureLate(context, 'PostgreSQL', count);
  }
}
