/**
 * The PostgreSQL backend's LISTEN connection (store/listen.ts), on the real server behind a proxy
 * that takes it away, with the pauses between tries on a timer the test fires by hand: what is
 * said and when, how long each pause is, one try at a time, and nothing left behind once stopped.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenForCommits, NOTIFY_CHANNEL } from '../../src/store/listen.js';
import { queryDatabase, startDatabaseProxy, TEST_SERVER_URL, type DatabaseProxy } from '../helpers/postgres.js';

const LOST = 'tracking endpoint: lost the database connection that brings live updates; reconnecting.';
const BACK = 'tracking endpoint: live updates from the database are back.';

/** A try planned by the listener: its pause, and whether it was cancelled. */
interface Planned {
  ms: number;
  cancelled: boolean;
  run: () => void;
}

let proxy: DatabaseProxy;
beforeAll(async () => {
  proxy = await startDatabaseProxy();
});
afterAll(() => proxy?.close());
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  proxy.restore();
});

/** Starts a listener through the proxy, under a name of its own, with its pauses planned on `planned` (fired by the test). */
function start(options: { atOnce?: boolean } = {}) {
  const name = `listen-test-${Math.random().toString(36).slice(2)}`;
  const made: pg.Client[] = [];
  const Client = class extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super(config);
      made.push(this);
    }
  };
  const logged: string[] = [];
  const planned: Planned[] = [];
  let heard = 0;
  const stop = listenForCommits({
    pg: { Client },
    config: { connectionString: proxy.urlFor(TEST_SERVER_URL), application_name: name },
    listener: () => heard++,
    log: (message) => logged.push(message),
    after(ms, run) {
      const plan: Planned = { ms, cancelled: false, run };
      planned.push(plan);
      // "At once": the try starts before anything else the failed client does next.
      if (options.atOnce) process.nextTick(run);
      return () => {
        plan.cancelled = true;
      };
    },
  });
  stops.push(stop);
  const listening = async () =>
    Number((await queryDatabase<{ n: string }>(TEST_SERVER_URL, "select count(*) as n from pg_stat_activity where application_name = $1 and query ilike 'LISTEN%'", [name]))[0].n);
  /** Runs the last planned try, once. */
  const fire = () => {
    const plan = planned.at(-1)!;
    expect(plan.cancelled).toBe(false);
    plan.run();
  };
  return { stop, made, logged, planned, heard: () => heard, listening, fire };
}

const notify = () => queryDatabase(TEST_SERVER_URL, `select pg_notify('${NOTIFY_CHANNEL}', '1')`);

describe('listening for commits of other endpoints (PostgreSQL)', () => {
  it('calls the listener for each commit announced, and says nothing while the connection holds', async () => {
    const l = start();
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
    expect(l.heard()).toBe(0);
    await notify();
    await expect.poll(l.heard, { timeout: 10_000 }).toBe(1);
    await notify();
    await expect.poll(l.heard, { timeout: 10_000 }).toBe(2);
    expect(l.logged).toEqual([]);
    expect(l.planned).toEqual([]);
    expect(l.made).toHaveLength(1);
  });

  it('when the connection is lost, says so once and plans one try in 250 ms; once back, says so and calls the listener once', async () => {
    const l = start();
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
    proxy.cut();
    await expect.poll(() => l.planned.length, { timeout: 10_000 }).toBe(1);
    // The client's error and its end both follow a loss: one line, one try, and no new client until the try.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(l.planned.map((p) => p.ms)).toEqual([250]);
    expect(l.logged).toEqual([LOST]);
    expect(l.made).toHaveLength(1);
    proxy.restore();
    l.fire();
    await expect.poll(() => l.logged, { timeout: 10_000 }).toEqual([LOST, BACK]);
    // Commits may have been missed meanwhile: those watching are told once.
    expect(l.heard()).toBe(1);
    expect(l.made).toHaveLength(2);
    expect(await l.listening()).toBe(1);
    await notify();
    await expect.poll(l.heard, { timeout: 10_000 }).toBe(2);
    // A late error from the client that was lost is no news: the new one listens.
    l.made[0].emit('error', new Error('late'));
    expect(l.planned).toHaveLength(1);
    expect(l.logged).toEqual([LOST, BACK]);
    await notify();
    await expect.poll(l.heard, { timeout: 10_000 }).toBe(3);
  });

  it('takes an error alone, or an end alone, of the listening client for a loss', async () => {
    for (const event of ['error', 'end'] as const) {
      const l = start();
      await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
      if (event === 'error') l.made[0].emit('error', new Error('protocol error'));
      else l.made[0].emit('end');
      expect(l.planned.map((p) => p.ms), event).toEqual([250]);
      expect(l.logged, event).toEqual([LOST]);
      // The client it gave up on is closed.
      await expect.poll(l.listening, { timeout: 10_000 }).toBe(0);
      l.fire();
      await expect.poll(() => l.logged, { timeout: 10_000 }).toEqual([LOST, BACK]);
      expect(await l.listening()).toBe(1);
      l.stop();
    }
  });

  it('doubles the pause after each failed try, up to 5 s, says nothing more meanwhile, and starts again at 250 ms once back', async () => {
    const l = start();
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
    proxy.cut();
    const pauses = [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000];
    for (let i = 0; i < pauses.length; i++) {
      await expect.poll(() => l.planned.length, { timeout: 10_000 }).toBe(i + 1);
      if (i + 1 < pauses.length) l.fire();
    }
    expect(l.planned.map((p) => p.ms)).toEqual(pauses);
    expect(l.logged).toEqual([LOST]);
    expect(l.heard()).toBe(0);
    proxy.restore();
    l.fire();
    await expect.poll(() => l.logged, { timeout: 10_000 }).toEqual([LOST, BACK]);
    expect(l.heard()).toBe(1);
    // Lost again: the pause starts over, and it is said again.
    proxy.cut();
    await expect.poll(() => l.planned.length, { timeout: 10_000 }).toBe(pauses.length + 1);
    expect(l.planned.at(-1)!.ms).toBe(250);
    expect(l.logged).toEqual([LOST, BACK, LOST]);
  });

  it('plans one try at a time, even when a try starts before the lost client has ended', async () => {
    const l = start({ atOnce: true });
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
    proxy.cut();
    proxy.restore();
    await expect.poll(() => l.logged, { timeout: 10_000 }).toEqual([LOST, BACK]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // One loss, one try, one new client.
    expect(l.planned.map((p) => p.ms)).toEqual([250]);
    expect(l.made).toHaveLength(2);
    expect(await l.listening()).toBe(1);
  });

  it('once stopped: closes its connection, cancels a planned try, and says nothing', async () => {
    const l = start();
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(1);
    l.stop();
    await expect.poll(l.listening, { timeout: 10_000 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(l.logged).toEqual([]);
    expect(l.planned).toEqual([]);

    const m = start();
    await expect.poll(m.listening, { timeout: 10_000 }).toBe(1);
    proxy.cut();
    await expect.poll(() => m.planned.length, { timeout: 10_000 }).toBe(1);
    m.stop();
    expect(m.planned[0].cancelled).toBe(true);
    proxy.restore();
    // No try is made, and nothing more is said.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(m.made).toHaveLength(1);
    expect(m.logged).toEqual([LOST]);
  });

  it('stopped while it connects: ends the connection it was making, and tells no one', async () => {
    const l = start();
    let ended = false;
    l.made[0].once('end', () => (ended = true));
    l.stop();
    await expect.poll(() => ended, { timeout: 5_000 }).toBe(true);
    expect(await l.listening()).toBe(0);
    expect(l.logged).toEqual([]);
    expect(l.planned).toEqual([]);
    await notify();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(l.heard()).toBe(0);
  });
});
