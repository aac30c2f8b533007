/**
 * The deployment guide's steps (docs/deployment.md), each run here with the files it gives
 * (endpoint/deploy/): the systemd unit verified by systemd-analyze and its ExecStart line run as
 * written (paths and port aside); nginx with that configuration checked by `nginx -t`, then run in
 * front of an endpoint (TLS, the allowed Host, readers signed in through an oauth2-proxy stand-in,
 * keys kept out of its access log); the PostgreSQL role script, pg_dump and pg_restore.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import https from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { makeCertificates, type Certificates } from '../helpers/certificates.js';
import { TEST_SERVER_URL } from '../helpers/postgres.js';
import { KEY, Q, message, start, tempDir } from '../helpers.js';

const ENDPOINT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const DEPLOY = join(ENDPOINT_DIR, 'deploy');

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: options.env ?? process.env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

let folder: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(() => folder.cleanup());

describe('the systemd unit', () => {
  const unitFile = join(DEPLOY, 'tracking-endpoint.service');

  it('passes systemd-analyze verify', async () => {
    const copy = join(folder.dir, 'tracking-endpoint.service');
    let unit = await readFile(unitFile, 'utf8');
    // The unit names Debian's /usr/bin/node; a machine whose node is elsewhere checks the rest with its own.
    if (!existsSync('/usr/bin/node')) unit = unit.replace('/usr/bin/node', process.execPath);
    await writeFile(copy, unit);
    const verified = await run('systemd-analyze', ['verify', '--man=no', copy]);
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    // And it would say so of a unit with a mistake in it.
    await writeFile(copy, unit.replace('DynamicUser=yes', 'DynamicUser=maybe'));
    expect((await run('systemd-analyze', ['verify', '--man=no', copy])).code).not.toBe(0);
  });

  it('runs its ExecStart line as written with the example environment file: keys and readers from it, the allowed Host, SIGHUP harmless, SIGTERM a clean stop', async () => {
    const unit = await readFile(unitFile, 'utf8');
    const execStart = /^ExecStart=(.+)$/m.exec(unit)![1];
    const state = join(folder.dir, 'state');
    await mkdir(state);
    const [, script, ...args] = execStart
      .replace('/opt/tracking-endpoint/node_modules/botbuilder-conversation-analytics-endpoint/', ENDPOINT_DIR)
      .replaceAll('/var/lib/tracking-endpoint', state)
      .replace('--port 3979', '--port 0')
      .split(' ');
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const line of (await readFile(join(DEPLOY, 'endpoint.env'), 'utf8')).split('\n')) {
      const match = /^([A-Z_]+)=(.*)$/.exec(line);
      if (match) env[match[1]] = match[2];
    }
    const child = spawn(process.execPath, [script, ...args], { cwd: state, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await expect.poll(() => stdout, { timeout: 15_000 }).toContain('Press Ctrl+C');
      const url = /listening on (http:\/\/\S+)/.exec(stdout)![1];
      expect(stdout).toContain(`in SQLite ${state}/tracking.db`);
      const pizzaKey = /pizza=([^,]+)/.exec(env.TRACKING_API_KEYS)![1];
      const teamToken = /team=([^,]+)/.exec(env.TRACKING_READERS)![1];
      const post = await fetch(`${url}/track?${new URLSearchParams({ ...Q.universalIn, apiKey: pizzaKey })}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'from a bot')) });
      expect(post.status).toBe(200);
      const read = (host: string) => new Promise<number>((resolve, reject) => {
        const target = new URL(`${url}/api/summary`);
        httpRequest({ host: target.hostname, port: target.port, path: target.pathname, headers: { host, authorization: `Bearer ${teamToken}` } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).on('error', reject).end();
      });
      expect(await read('tracking.example.com')).toBe(200);
      expect(await read('elsewhere.example.com')).toBe(403);
      child.kill('SIGHUP');
      await expect.poll(() => stderr).toContain('SIGHUP: nothing to reload');
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

/** An oauth2-proxy stand-in: signed in when the cookie names a user; its sign-in page otherwise. */
function startSignIn(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/oauth2/auth') {
      const user = /(?:^|; )_oauth2_proxy=([\w.@-]+)/.exec(req.headers.cookie ?? '')?.[1];
      res.writeHead(user ? 202 : 401, user ? { 'X-Auth-Request-User': user } : {}).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Sign in with your company account');
  });
  server.listen(port, '127.0.0.1');
  return once(server, 'listening').then(() => server);
}

describe('nginx in front of the endpoint', () => {
  let certs: Certificates;
  let prefix: string;
  let endpoint: TrackingEndpoint;
  let signIn: Server;
  let nginx: ChildProcess | undefined;
  let httpsPort: number;
  let httpPort: number;
  const hasNginx = existsSync('/usr/sbin/nginx');

  beforeAll(async () => {
    if (!hasNginx) throw new Error('These tests need nginx (apt-get install nginx-light; npm test installs it as root: scripts/ensure-nginx.sh).');
    certs = await makeCertificates(folder.dir, 'nginx');
    prefix = join(folder.dir, 'nginx');
    await mkdir(join(prefix, 'logs'), { recursive: true });
    await chmod(folder.dir, 0o755);
    endpoint = await start({ apiKeys: [`pizza=${KEY}`], trustProxyUser: 'X-Forwarded-User', readerUsers: ['alice@example.com:admin'], allowedHosts: ['tracking.example.com'] });
    const signInPort = await freePort();
    signIn = await startSignIn(signInPort);
    [httpsPort, httpPort] = [await freePort(), await freePort()];
    const site = (await readFile(join(DEPLOY, 'nginx-tracking.conf'), 'utf8'))
      .replace('listen 80;', `listen 127.0.0.1:${httpPort};`)
      .replace('listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`)
      .replace('/etc/letsencrypt/live/tracking.example.com/fullchain.pem', certs.certFile)
      .replace('/etc/letsencrypt/live/tracking.example.com/privkey.pem', certs.keyFile)
      .replaceAll('/var/log/nginx/', `${prefix}/logs/`)
      .replaceAll('/etc/nginx/tracking-proxy.conf', join(DEPLOY, 'tracking-proxy.conf'))
      .replace('server 127.0.0.1:3979;', `server 127.0.0.1:${endpoint.port};`)
      .replaceAll('127.0.0.1:4180', `127.0.0.1:${signInPort}`);
    await writeFile(join(prefix, 'tracking.conf'), site);
    await writeFile(join(prefix, 'nginx.conf'), [
      'worker_processes 1;', `pid ${prefix}/nginx.pid;`, `error_log ${prefix}/logs/error.log;`, 'events {}',
      'http {', `  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;`,
      `  access_log off; include ${prefix}/tracking.conf;`, '}', '',
    ].join('\n'));
  });
  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    if (nginx) await once(nginx, 'close');
    signIn?.close();
    await endpoint?.close();
  });

  /** A request through nginx over HTTPS, as a browser at tracking.example.com makes it. */
  function through(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: '127.0.0.1', port: httpsPort, path, method: init.method ?? 'GET', ca: [readFileSync(certs.caFile)],
        headers: { host: 'tracking.example.com', ...init.headers }, servername: 'localhost',
      }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end(init.body);
    });
  }

  it('takes the configuration (nginx -t), then serves: bots post, readers sign in, a client cannot name itself, keys stay out of the log', async () => {
    const checked = await run('/usr/sbin/nginx', ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf')]);
    expect(checked.stderr).toContain('syntax is ok');
    expect(checked.stderr).toContain('test is successful');
    expect(checked.code).toBe(0);
    nginx = spawn('/usr/sbin/nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    await expect.poll(() => through('/healthz').then((r) => r.status, () => 0), { timeout: 10_000 }).toBe(200);

    const posted = await through(`/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', 'through nginx')) });
    expect(posted.status).toBe(200);
    expect(await endpoint.store.count()).toBe(1);

    // Not signed in: oauth2-proxy's sign-in page, and the endpoint is not asked.
    expect(await through('/api/summary')).toMatchObject({ status: 200, body: 'Sign in with your company account' });
    expect(await through('/api/summary', { headers: { 'x-forwarded-user': 'alice@example.com' } })).toMatchObject({ body: 'Sign in with your company account' });
    // Signed in as a reader: the data.
    const alice = await through('/api/summary', { headers: { cookie: '_oauth2_proxy=alice@example.com' } });
    expect(alice.status).toBe(200);
    expect(JSON.parse(alice.body)).toMatchObject({ records: 1 });
    // Signed in as someone who is no reader, claiming to be one: the endpoint sees who signed in.
    const mallory = await through('/api/summary', { headers: { cookie: '_oauth2_proxy=mallory@example.com', 'x-forwarded-user': 'alice@example.com' } });
    expect(mallory.status).toBe(403);
    expect(mallory.body).not.toContain('"records"');
    // The live stream is passed unbuffered: its first bytes arrive while it stays open.
    const live = await new Promise<string>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: httpsPort, path: '/api/events', ca: [readFileSync(certs.caFile)], servername: 'localhost', headers: { host: 'tracking.example.com', cookie: '_oauth2_proxy=alice@example.com' } }, (res) => {
        res.once('data', (c: Buffer) => {
          resolve(`${res.statusCode} ${res.headers['content-type']} ${c.length > 0}`);
          req.destroy();
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(live).toMatch(/^200 text\/event-stream.* true$/);

    // Plain HTTP goes to HTTPS.
    const redirect = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: httpPort, path: '/api/summary', headers: { host: 'tracking.example.com' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, location: res.headers.location });
      }).on('error', reject).end();
    });
    expect(redirect).toEqual({ status: 301, location: 'https://tracking.example.com/api/summary' });

    const accessLog = await readFile(join(prefix, 'logs', 'tracking.access.log'), 'utf8');
    expect(accessLog).toMatch(/"POST \/track HTTP\/1\.1" 200 /);
    expect(accessLog).not.toContain(KEY);
    expect(accessLog).not.toContain('apiKey');
  });
});

describe('PostgreSQL: the role script, pg_dump and pg_restore', () => {
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const role = `tracking_role_${suffix}`;
  const database = `tracking_deploy_${suffix}`;
  const restored = `tracking_restored_${suffix}`;
  const admin = () => new pg.Client({ connectionString: TEST_SERVER_URL });

  afterAll(async () => {
    const client = admin();
    await client.connect();
    try {
      for (const name of [database, restored]) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await client.end();
    }
  });

  it('gives the endpoint a role that owns its database and nothing more; a dump restores to a database another endpoint reads the same', async () => {
    const script = (await readFile(join(DEPLOY, 'postgres-role.sql'), 'utf8'))
      .replaceAll('ROLE tracking ', `ROLE ${role} `).replaceAll('OWNER tracking', `OWNER ${role}`)
      .replaceAll('DATABASE tracking', `DATABASE ${database}`);
    const client = admin();
    await client.connect();
    try {
      for (const statement of script.split(';').map((s) => s.replace(/--.*$/gm, '').trim()).filter(Boolean)) await client.query(statement);
      const [rights] = (await client.query('select rolsuper, rolcreatedb, rolcreaterole from pg_roles where rolname = $1', [role])).rows;
      expect(rights).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    } finally {
      await client.end();
    }
    const server = new URL(TEST_SERVER_URL);
    const url = `postgres://${role}:pw@${server.host}/${database}`;
    const first = await start({ database: url });
    try {
      for (let i = 0; i < 3; i++) await fetch(`${first.url}/track?${new URLSearchParams(Q.universalIn)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message('u1', `kept ${i}`)) });
      expect(await first.store.count()).toBe(3);
    } finally {
      await first.close();
    }
    // The guide's backup and restore, with the endpoint's own role.
    const dump = join(folder.dir, 'tracking.dump');
    const env = { ...process.env, PGHOST: server.hostname, PGPORT: server.port || '5432' };
    const dumped = await run('pg_dump', ['--format=custom', '--no-owner', '--username', role, '--file', dump, database], { env });
    expect(dumped.stderr).toBe('');
    expect(dumped.code).toBe(0);
    const creator = admin();
    await creator.connect();
    try {
      await creator.query(`CREATE DATABASE ${restored} OWNER ${role}`);
    } finally {
      await creator.end();
    }
    const back = await run('pg_restore', ['--no-owner', '--username', role, '--dbname', restored, dump], { env });
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    const second = await start({ database: `postgres://${role}:pw@${server.host}/${restored}` });
    try {
      expect(await second.store.count()).toBe(3);
      expect((await second.store.records({ limit: 10 })).map((r) => (r.body as { text: string }).text)).toEqual(['kept 0', 'kept 1', 'kept 2']);
    } finally {
      await second.close();
    }
  });
});
