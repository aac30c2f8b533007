/**
 * What the endpoint promises on a crash, tried on real processes: `serve` killed with SIGKILL
 * while clients are sending, then restarted (as PID 1 in a PID namespace of its own, as in a
 * container); two endpoints started together on one SQLite file, fresh or left by a killed one; two
 * endpoints on one PostgreSQL database, one of them killed.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN } from '../cli/helpers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers.js';

const KEY = 'crash-test-key';
const QUERY = new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: KEY });

interface Served {
  url: string;
  child: ChildProcess;
  /** SIGTERM to the endpoint (unshare itself passes no signal on), then waits for it to exit. */
  stop(): Promise<void>;
  exited: Promise<number | string | null>;
  /** The pid of the endpoint's own node process (inside its PID namespace it is 1). */
  endpointPid: number;
  stderr: () => string;
}

/** Starts `serve` as PID 1 of a new PID namespace (`unshare`), as a container runs it; resolves once it listens, rejects with its stderr when it exits first. */
function serve(args: string[]): Promise<Served> {
  const child = spawn('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--kill-child', process.execPath, '--import', 'tsx', MAIN, 'serve', '--port', '0', '--key', KEY, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TRACKING_API_KEY: '', TRACKING_API_KEYS: '', TRACKING_DATABASE_URL: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | string | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  let listening = false;
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!listening && match && stdout.includes('Press Ctrl+C')) {
        listening = true;
        const endpointPid = Number(execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n')[0]);
        const stop = async () => {
          try {
            process.kill(endpointPid, 'SIGTERM');
          } catch {
            // already gone
          }
          await exited;
        };
        resolve({ url: match[1], child, exited, endpointPid, stop, stderr: () => stderr });
      }
    });
    void exited.then((code) => reject(Object.assign(new Error(`serve exited with ${code}: ${stderr}`), { stderr })));
  });
}

/** Posts records as fast as `clients` loops can until `stop()`; remembers each one acknowledged (its id and text). */
function send(url: () => string, clients: number) {
  const acknowledged: { id: number; text: string }[] = [];
  let stopped = false;
  let n = 0;
  const loops = Array.from({ length: clients }, async (_, c) => {
    while (!stopped) {
      const text = `client ${c} record ${n++}`;
      try {
        const res = await fetch(`${url()}/track?${QUERY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, userId: `user-${c}` }) });
        const body = (await res.json()) as { ok: boolean; id: number };
        if (res.status === 200 && body.ok) acknowledged.push({ id: body.id, text });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20)); // the endpoint is gone: nothing acknowledged
      }
    }
  });
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** The text of each record `ids`, as the endpoint at `url` reads it back. */
async function textsOf(url: string, ids: number[]): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const part = await Promise.all(ids.slice(i, i + 50).map(async (id) => {
      const res = await fetch(`${url}/api/record?seq=${id}`);
      return res.status === 200 ? ((await res.json()) as { record: { body: { text: string } } }).record.body.text : undefined;
    }));
    out.push(...part);
  }
  return out;
}

const until = async (check: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

let folder: { dir: string; cleanup: () => Promise<void> };
let pg: TestDatabase;
beforeAll(async () => {
  folder = await tempDir();
  pg = await createTestDatabase();
});
afterAll(async () => {
  await folder?.cleanup();
  await pg?.drop();
});

describe('a crash', () => {
  it('SQLite: every record acknowledged before a SIGKILL is there after a restart, which starts at once as PID 1 again', async () => {
    const data = join(folder.dir, 'crash.db');
    const first = await serve(['--data', data]);
    const load = send(() => first.url, 8);
    await until(() => load.acknowledged.length >= 300);
    process.kill(first.endpointPid, 'SIGKILL');
    await first.exited;
    await load.stop();
    const acknowledged = [...load.acknowledged];

    const startedAt = Date.now();
    const second = await serve(['--data', data]);
    try {
      expect(Date.now() - startedAt).toBeLessThan(15_000); // no stale lock to wait out, though it is PID 1 as before
      expect(await textsOf(second.url, acknowledged.map((a) => a.id))).toEqual(acknowledged.map((a) => a.text));
      // The views hold them too: what the kill left out of them was added at the restart.
      const summary = (await (await fetch(`${second.url}/api/summary`)).json()) as { records: number; users: number };
      expect(summary.records).toBeGreaterThanOrEqual(acknowledged.length);
      expect(summary.users).toBeGreaterThanOrEqual(new Set(acknowledged.map((a) => a.text.split(' ')[1])).size);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('SQLite: of two endpoints started together on one file, exactly one runs; the other says the file is in use', async () => {
    for (let round = 0; round < 3; round++) {
      const data = join(folder.dir, `together-${round}.db`);
      const outcomes = await Promise.allSettled([serve(['--data', data]), serve(['--data', data])]);
      const running = outcomes.filter((o): o is PromiseFulfilledResult<Served> => o.status === 'fulfilled');
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      try {
        expect(running).toHaveLength(1);
        expect(refused).toHaveLength(1);
        expect(refused[0].reason.stderr).toMatch(/in use by another tracking endpoint/);
      } finally {
        for (const { value } of running) await value.stop();
      }
    }
  }, 60_000);

  it('SQLite: of two endpoints started together over a stale lock (the file of an endpoint killed with SIGKILL), exactly one runs, round after round, and numbers never collide', async () => {
    const data = join(folder.dir, 'stale.db');
    // The file's first owner, killed while clients send: its write-ahead log and lock are left as a crash leaves them.
    let owner = await serve(['--data', data]);
    const acknowledged: { id: number; text: string }[] = [];
    for (let round = 0; round < 10; round++) {
      const load = send(() => owner.url, 4);
      await until(() => load.acknowledged.length >= 20);
      process.kill(owner.endpointPid, 'SIGKILL');
      await owner.exited;
      await load.stop();
      acknowledged.push(...load.acknowledged);
      const outcomes = await Promise.allSettled([serve(['--data', data]), serve(['--data', data])]);
      const running = outcomes.filter((o): o is PromiseFulfilledResult<Served> => o.status === 'fulfilled').map((o) => o.value);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (running.length !== 1) for (const endpoint of running) await endpoint.stop();
      expect(running, `round ${round}`).toHaveLength(1);
      expect(refused[0].reason.stderr, `round ${round}`).toMatch(/in use by another tracking endpoint/);
      owner = running[0];
    }
    try {
      const ids = acknowledged.map((a) => a.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await textsOf(owner.url, ids)).toEqual(acknowledged.map((a) => a.text));
    } finally {
      await owner.stop();
    }
  }, 180_000);

  it('PostgreSQL: with two endpoints on one database, killing one loses nothing it acknowledged, and the other goes on', async () => {
    const [a, b] = await Promise.all([serve(['--database', pg.url]), serve(['--database', pg.url])]);
    try {
      const toA = send(() => a.url, 4);
      const toB = send(() => b.url, 4);
      await until(() => toA.acknowledged.length >= 150 && toB.acknowledged.length >= 50);
      process.kill(a.endpointPid, 'SIGKILL');
      await a.exited;
      await toA.stop();
      const countAtKill = toB.acknowledged.length;
      await until(() => toB.acknowledged.length >= countAtKill + 50);
      await toB.stop();
      const all = [...toA.acknowledged, ...toB.acknowledged];
      expect(await textsOf(b.url, all.map((r) => r.id))).toEqual(all.map((r) => r.text));
      const summary = (await (await fetch(`${b.url}/api/summary`)).json()) as { records: number };
      expect(summary.records).toBeGreaterThanOrEqual(all.length);
    } finally {
      await b.stop();
    }
  }, 60_000);
});
