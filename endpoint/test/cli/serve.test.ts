import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { reachableUrls } from '../../src/cli/serve.js';
import { runCli, spawnCli } from './helpers.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracking-cli-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Starts `serve`, waits for its address line, and returns the URL and the child. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawnCli(['serve', '--port', '0', ...args], env);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match && stdout.includes('Press Ctrl+C')) resolve(match[1]);
    });
    child.on('close', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | string | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  return { url, child, exited, output: () => stdout, errors: () => stderr };
}

describe('serve', () => {
  it('prints its address, accepts a tracking request with a --key, and stops cleanly on SIGTERM', async () => {
    const data = join(dir, 'tracking.db');
    const server = await serve(['--key', 'k-1', '--data', data]);
    expect(server.output()).toContain('accepting 1 API key');
    const query = new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: 'k-1' });
    const res = await fetch(`${server.url}/track?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', userId: 'u1' }) });
    expect(res.status).toBe(200);
    const refused = await fetch(`${server.url}/track?${query.toString().replace('k-1', 'k-2')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('Stopped.');
    // A real SQLite file, readable by any SQLite tool.
    const db = new Database(data, { readonly: true });
    try {
      expect(db.prepare('select type, body from records').all()).toEqual([{ type: 'incoming', body: '{"text":"hi","userId":"u1"}' }]);
    } finally {
      db.close();
    }
  });

  it('takes the metrics token from --metrics-token, else from TRACKING_METRICS_TOKEN, and never prints it', async () => {
    const fromEnv = await serve(['--memory', '--reader', 'team=r-token-1'], { TRACKING_METRICS_TOKEN: 'env-scrape-token' });
    const fromFlag = await serve(['--memory', '--reader', 'team=r-token-1', '--metrics-token', 'flag-scrape-token'], { TRACKING_METRICS_TOKEN: 'env-scrape-token' });
    try {
      const scrape = (url: string, token: string) => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
      expect(await scrape(fromEnv.url, 'env-scrape-token')).toBe(200);
      expect(await scrape(fromEnv.url, 'flag-scrape-token')).toBe(401);
      expect(await scrape(fromFlag.url, 'flag-scrape-token')).toBe(200);
      expect(await scrape(fromFlag.url, 'env-scrape-token')).toBe(401);
    } finally {
      fromEnv.child.kill('SIGTERM');
      fromFlag.child.kill('SIGTERM');
      await Promise.all([fromEnv.exited, fromFlag.exited]);
    }
    for (const server of [fromEnv, fromFlag]) expect(server.output() + server.errors()).not.toContain('scrape-token');
  });

  it('keeps records of several named bots apart, and reads filter by a bot\'s name', async () => {
    const server = await serve(['--memory', '--key', 'pizza=k-pizza', '--key', 'taxi=k-taxi'], { TRACKING_API_KEYS: 'support=k-support' });
    try {
      expect(server.output()).toContain('accepting 3 API keys');
      const post = (key: string, text: string) =>
        fetch(`${server.url}/track?${new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: key })}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text, userId: 'u1' }) });
      for (const [key, text] of [['k-pizza', 'a pizza'], ['k-pizza', 'another'], ['k-taxi', 'a taxi'], ['k-support', 'help']]) expect((await post(key, text)).status).toBe(200);
      const bots = (await (await fetch(`${server.url}/api/bots`)).json()) as { bots: { name: string; records: number; bot: string }[] };
      expect(bots.bots.map((b) => [b.name, b.records]).sort()).toEqual([['pizza', 2], ['support', 1], ['taxi', 1]]);
      expect(JSON.stringify(bots)).not.toMatch(/k-pizza|k-taxi|k-support/);
      const pizza = (await (await fetch(`${server.url}/api/summary?bot=pizza`)).json()) as { records: number };
      expect(pizza.records).toBe(2);
      const users = (await (await fetch(`${server.url}/api/users?bot=taxi`)).json()) as { users: { botName: string }[] };
      expect(users.users).toEqual([expect.objectContaining({ userId: 'u1', botName: 'taxi' })]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('logs one line per refused request, never its key, and a summary line of what was accepted and refused', async () => {
    const server = await serve(['--memory', '--key', 'k-secret-1']);
    const query = (key: string) => new URLSearchParams({ platform: 'universal', v: '10.1.1-rest', type: 'incoming', apiKey: key });
    await fetch(`${server.url}/track?${query('k-secret-1')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'ok', userId: 'u1' }) });
    await fetch(`${server.url}/track?${query('wrong-secret-2')}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${server.url}/track?${query('k-secret-1')}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    server.child.kill('SIGTERM');
    await server.exited;
    const log = server.errors();
    const refusals = log.split('\n').filter((line) => line.includes('refused POST /track'));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/refused POST \/track with 401 from 127\.0\.0\.1: Unknown API key/);
    expect(refusals[1]).toMatch(/with 415 .*Content-Type/);
    expect(log).toMatch(/1 record accepted, 2 requests refused \(401: 1, 415: 1\)/);
    expect(log).not.toMatch(/k-secret-1|wrong-secret-2/);
  });

  it('accepts a client version such as 12.1.0-npm and says so once, or refuses it with --strict-versions', async () => {
    const query = new URLSearchParams({ platform: 'universal', v: '12.1.0-npm', type: 'incoming', apiKey: 'k-1' });
    const post = (url: string) => fetch(`${url}/track?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', userId: 'u1' }) });
    const lenient = await serve(['--memory', '--key', 'k-1']);
    expect((await post(lenient.url)).status).toBe(200);
    expect((await post(lenient.url)).status).toBe(200);
    lenient.child.kill('SIGTERM');
    await lenient.exited;
    expect(lenient.errors().match(/client version v=12\.1\.0-npm/g)).toHaveLength(1);
    const strict = await serve(['--memory', '--key', 'k-1', '--strict-versions']);
    const refused = await post(strict.url);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { problems: unknown[] }).problems).toEqual([{ path: 'v', expected: '"10.1.1-rest" (the version for universal-platform messages)', received: '"12.1.0-npm"' }]);
    strict.child.kill('SIGTERM');
    await strict.exited;
    expect(strict.errors()).not.toContain('client version');
  });

  it('on --host 0.0.0.0 prints addresses other machines can use, not 0.0.0.0, and one of them answers', async () => {
    const server = await serve(['--memory', '--host', '0.0.0.0', '--key', 'k-1']);
    try {
      expect(server.output()).not.toContain('0.0.0.0');
      const expected = reachableUrls('http://0.0.0.0:1', networkInterfaces()).map((url) => url.replace(/:1$/, ''));
      expect(expected.some((url) => server.url.startsWith(`${url}:`))).toBe(true);
      expect(server.output()).toContain(`TRACKING_BASE_URL=${server.url}`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('takes PostgreSQL from --database or TRACKING_DATABASE_URL, and says which URL (without its password) it cannot reach', async () => {
    const flag = await runCli(['serve', '--port', '0', '--database', 'postgres://bot:pw-123@127.0.0.1:1/x']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('postgres://bot:***@127.0.0.1:1/x');
    expect(flag.stderr).not.toContain('pw-123');
    const env = await runCli(['serve', '--port', '0'], { TRACKING_DATABASE_URL: 'postgresql://127.0.0.1:1/y' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('Cannot reach the PostgreSQL database at postgresql://127.0.0.1:1/y');
    const both = await runCli(['serve', '--memory', '--database', 'postgres://x/y']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--memory and --database cannot be used together');
    const sqlite = await runCli(['serve', '--database', 'tracking.db']);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toContain('for a SQLite file use --data FILE');
    const retention = await runCli(['serve', '--memory', '--retention', 'forever']);
    expect(retention.code).toBe(2);
    expect(retention.stderr).toContain('--retention takes a number of days');
  });

  it('stops on SIGINT (Ctrl+C) and says which keys it accepts from the environment', async () => {
    const server = await serve(['--memory'], { TRACKING_API_KEYS: 'a-1, b-2', TRACKING_API_KEY: 'c-3' });
    expect(server.output()).toContain('accepting 3 API keys');
    expect(server.output()).toContain('in memory only');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('says when any key is accepted because none was given', async () => {
    const server = await serve(['--memory']);
    expect(server.output()).toContain('no --key given: accepting any API key that is not a placeholder');
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('exits 2 with a clear message for a bad option', async () => {
    const result = await runCli(['serve', '--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port must be a whole number');
    expect(result.stderr).toContain('serve --help');
  });

  it('exits 1 and says what to do when the key is a placeholder', async () => {
    const result = await runCli(['serve', '--port', '0', '--memory', '--key', '<API_KEY>']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('placeholder');
  });
});

describe('the dispatcher', () => {
  it('lists the commands with --help and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/serve\s+run a local tracking endpoint/);
    expect(result.stdout).toMatch(/transcript\s+/);
    expect(result.stdout).toMatch(/import\s+/);
  });

  it('exits 2 for an unknown command, listing the known ones', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
    expect(result.stderr).toContain('serve');
  });

  it('prints a command\'s options with <command> --help', async () => {
    const result = await runCli(['import', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--map FIELD=COLUMN');
  });
});
