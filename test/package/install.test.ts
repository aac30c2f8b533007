/**
 * Both packages as their users install them: each packed tarball (built by `npm test`, packed
 * without its prepack so the tests beside this one keep their dist/) installed into an empty
 * project with npm, then loaded or run there. A bot's install of the middleware is one package with
 * no dependency and no native code; the endpoint's brings its database drivers and a working
 * command; the old endpoint subpath and command say where the endpoint went.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../endpoint/test/helpers/postgres.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENDPOINT_BIN = 'botbuilder-conversation-analytics-endpoint';

let work: string;
let middlewareTarball: string;
let endpointTarball: string;

/** npm pack, without prepack (npm test built dist/ already): the tarball's path and its file list. */
async function pack(args: string[]): Promise<{ tarball: string; files: string[] }> {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(work, result.filename), files: result.files.map((file) => file.path).sort() };
}

/** An empty project (a package.json and nothing else), with `tarballs` installed by npm. */
async function install(name: string, tarballs: string[]): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return dir;
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

/** The packages npm put in `node_modules` (scoped ones by their full name). */
function installedPackages(dir: string): string[] {
  const modules = join(dir, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

function sizeOf(dir: string): number {
  return filesUnder(dir).reduce((total, file) => total + statSync(join(dir, file)).size, 0);
}

const node = (cwd: string, args: string[]) =>
  run(process.execPath, args, { cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'install-'));
  middlewareTarball = (await pack([])).tarball;
  endpointTarball = (await pack(['-w', 'endpoint'])).tarball;
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the middleware package, as a bot installs it', () => {
  let project: string;

  beforeAll(async () => {
    project = await install('bot', [middlewareTarball]);
  }, 120_000);

  it('its tarball holds the built code, the README and package.json: no endpoint, no page, no command of its own', async () => {
    const { files } = await pack([]);
    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual(['README.md', 'package.json']);
    // The entries (the package's own, the protocol subpath, and the two that say where the endpoint
    // went) and the declarations they share; nothing else.
    // A shared chunk's name ends in an 8-character hash in base64url, which may hold '-' and '_'.
    const stems = new Set(files.filter((file) => file.startsWith('dist/')).map((file) => file.slice('dist/'.length).split('.')[0].replace(/-[\w-]{8}$/, '-*')));
    expect([...stems].sort()).toEqual(['endpoint-moved', 'endpoint-moved-cli', 'index', 'platforms-*', 'protocol']);
  });

  it('installs as one package with no dependency, under 2 MB, with no native addon and no install script', () => {
    expect(installedPackages(project)).toEqual(['botbuilder-conversation-analytics']);
    const installed = join(project, 'node_modules', 'botbuilder-conversation-analytics');
    expect(sizeOf(join(project, 'node_modules'))).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(filesUnder(installed).filter((file) => file.endsWith('.node') || file === 'binding.gyp')).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.optionalDependencies).toBeUndefined();
    expect(Object.keys((manifest.scripts as Record<string, string>) ?? {}).filter((name) => /^(pre|post)?install$/.test(name))).toEqual([]);
  });

  it('no built file loads a database driver, Kysely or the endpoint', () => {
    const dist = join(project, 'node_modules', 'botbuilder-conversation-analytics', 'dist');
    const code = filesUnder(dist).filter((file) => /\.(c?js)$/.test(file));
    expect(code.length).toBeGreaterThan(0);
    for (const file of code) {
      const text = readFileSync(join(dist, file), 'utf8');
      expect(text, file).not.toMatch(/(require\(|from\s*|import\()\s*["'](kysely|pg|better-sqlite3|botbuilder-conversation-analytics-endpoint)["']/);
    }
  });

  it('require() and import give TrackingMiddleware and TrackingClient, and the protocol subpath gives validate', async () => {
    const required = await node(project, ['-e', "const m = require('botbuilder-conversation-analytics'); const p = require('botbuilder-conversation-analytics/protocol'); console.log(typeof m.TrackingMiddleware, typeof m.TrackingClient, typeof p.validate)"]);
    expect(required.stdout.trim()).toBe('function function function');
    const imported = await node(project, ['--input-type=module', '-e', "import { TrackingClient, TrackingMiddleware } from 'botbuilder-conversation-analytics'; import { validate } from 'botbuilder-conversation-analytics/protocol'; console.log(typeof TrackingMiddleware, typeof TrackingClient, typeof validate)"]);
    expect(imported.stdout.trim()).toBe('function function function');
  });

  it('the old endpoint subpath fails at once, saying which package to install and what to import', async () => {
    for (const args of [['-e', "require('botbuilder-conversation-analytics/endpoint')"], ['--input-type=module', '-e', "import 'botbuilder-conversation-analytics/endpoint'"]]) {
      const result = await node(project, args);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('npm install botbuilder-conversation-analytics-endpoint');
      expect(result.stderr).toContain("import from 'botbuilder-conversation-analytics-endpoint'");
    }
  });

  it('the old command says where the endpoint went, with the command line to run instead', async () => {
    const result = await node(project, [join(project, 'node_modules', '.bin', 'botbuilder-conversation-analytics'), 'serve', '--key', 'my key']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Run instead:  npx botbuilder-conversation-analytics-endpoint serve --key 'my key'");
    expect(result.stderr).toContain('npm install botbuilder-conversation-analytics-endpoint');
  });
});

describe('the endpoint package, as a team installs it', () => {
  let project: string;
  let database: TestDatabase;

  beforeAll(async () => {
    // A real install: npm builds better-sqlite3 from source here, as it does wherever no prebuilt binary is reachable.
    [project, database] = await Promise.all([install('service', [middlewareTarball, endpointTarball]), createTestDatabase()]);
  }, 300_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('brings its database drivers and Kysely as regular dependencies, and the middleware package for the protocol', () => {
    const packages = installedPackages(project);
    for (const name of ['botbuilder-conversation-analytics', 'botbuilder-conversation-analytics-endpoint', 'better-sqlite3', 'kysely', 'pg']) expect(packages).toContain(name);
  });

  it('its command prints its help', async () => {
    const result = await node(project, [join(project, 'node_modules', '.bin', ENDPOINT_BIN), '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: ${ENDPOINT_BIN}`);
  });

  it.each([
    ['SQLite, with nothing to set up', () => []],
    ['PostgreSQL, with --database', () => ['--database', database.url]],
  ])('serve answers /healthz with 200 on %s', async (_label, extra) => {
    const folder = mkdtempSync(join(project, 'run-'));
    const child = spawn(process.execPath, [join(project, 'node_modules', '.bin', ENDPOINT_BIN), 'serve', '--port', '0', ...extra()], { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      // The page and its script, which the package ships built.
      const page = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      const script = /<script[^>]* src="([^"]+)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      expect((await fetch(new URL(script as string, `${url}/`))).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 60_000);
});
