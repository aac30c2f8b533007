import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('the public surface', () => {
  it('matches the checked-in API reports (api/*.api.md): a change to what users can import is visible in review', async () => {
    // npm test builds dist/ first; API Extractor compares its declarations with the reports.
    const result = await run('sh', ['scripts/api-report.sh', '--check']).then(
      () => ({ ok: true, stderr: '' }),
      (error: { stderr?: string }) => ({ ok: false, stderr: error.stderr ?? String(error) }),
    );
    expect(result.ok, result.stderr).toBe(true);
  }, 60_000);
});
