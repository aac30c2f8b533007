/** `npm test` makes sure a real PostgreSQL server answers before the database tests run, and fails clearly when none can. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../scripts/ensure-postgres.sh', import.meta.url));

const run = (env: Record<string, string>) =>
  promisify(execFile)('sh', [SCRIPT], { env: { ...process.env, ...env } }).then(
    (out) => ({ code: 0, stderr: out.stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );

describe('scripts/ensure-postgres.sh (run before npm test)', () => {
  it('passes when the test server answers', async () => {
    expect(await run({})).toEqual({ code: 0, stderr: '' });
  });

  it('fails, naming the URL without its password and what to do, when TRACKING_TEST_DATABASE_URL does not answer', async () => {
    const result = await run({ TRACKING_TEST_DATABASE_URL: 'postgres://ci:hunter2-pw@127.0.0.1:1/tracking' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('postgres://ci:***@127.0.0.1:1/tracking');
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(result.stderr).toContain('Point it at a PostgreSQL server');
    expect(result.stderr).not.toContain('hunter2-pw');
  });
});
