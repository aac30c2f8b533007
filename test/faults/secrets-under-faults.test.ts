/**
 * The fault scenarios again, in a child process with TRACKING_DEBUG=1 and the client's default
 * stderr logger: whatever the process prints — debug lines for every request, warnings for
 * given-up records, and every error printed in full (String, stack, util.inspect, JSON) — must
 * not contain the API key or the messenger access token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScript, type ScriptResult } from '../helpers/run-script.js';
import { API_KEY, PAGE_TOKEN, SCENARIOS, type ScenarioReport } from './scenario.js';

let run: ScriptResult;
let reports: ScenarioReport[];

beforeAll(async () => {
  run = await runScript('test/faults/fixtures/fault-child.ts', { env: { TRACKING_DEBUG: '1', TRACKING_API_KEY: '', TRACKING_BASE_URL: '' }, timeoutMs: 45_000 });
  reports = [...run.stdout.matchAll(/^REPORT (.*)$/gm)].map((m) => JSON.parse(m[1]) as ScenarioReport);
}, 50_000);

describe('every fault scenario in a process with TRACKING_DEBUG=1', () => {
  it('runs to the end and loses no record', () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('done');
    expect(reports.map((r) => r.name)).toEqual(SCENARIOS.map((s) => s.name));
    for (const report of reports) expect({ name: report.name, lost: report.lost }).toEqual({ name: report.name, lost: 0 });
  });

  it('writes a debug line per request to stderr, with the key and the token masked', () => {
    const debugLines = run.stderr.split('\n').filter((line) => line.startsWith('[conversation-analytics] debug:'));
    expect(debugLines.length).toBeGreaterThan(reports.reduce((sum, r) => sum + r.requests, 0));
    expect(run.stderr).toContain('apiKey=***');
    expect(run.stderr).toContain('\\"access_token\\":\\"***\\"');
  });

  it('warns on stderr about the records it gave up, and prints every error in full on stdout', () => {
    expect(run.stderr).toContain('[conversation-analytics] warn:');
    expect(run.stdout).toContain('TrackingDeliveryError');
    expect(run.stdout).toMatch(/ECONNREFUSED|ECONNRESET|ETIMEDOUT/);
    expect(run.stdout).toContain('(HTTP 400)'); // the refusal whose body echoed the key and the token
  });

  it('prints neither the API key nor the access token anywhere: stdout or stderr', () => {
    expect(run.stdout).not.toContain(API_KEY);
    expect(run.stderr).not.toContain(API_KEY);
    expect(run.stdout).not.toContain(PAGE_TOKEN);
    expect(run.stderr).not.toContain(PAGE_TOKEN);
  });
});
