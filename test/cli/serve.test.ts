import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  return { url, child, exited, output: () => stdout };
}

describe('serve', () => {
  it('prints its address, accepts a tracking request with a --key, and stops cleanly on SIGTERM', async () => {
    const data = join(dir, 'records.ndjson');
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
    expect(await readFile(data, 'utf8')).toContain('"text":"hi"');
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
