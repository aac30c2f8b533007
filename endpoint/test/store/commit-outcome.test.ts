/**
 * Finding out what a commit whose answer was lost did: the question is asked until the database
 * answers, every 100 ms, for up to the bound; no answer in time is "unknown". On fake timers
 * (the clock the loop reads included), so every pause and bound is exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { COMMIT_CHECK_MS, COMMIT_CHECK_RETRY_MS, resolveCommitOutcome, type CommitOutcome } from '../../src/store/commit-outcome.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A check that answers `answers` in turn (an Error: rejects), after `ms` each; records when it was asked. */
function checker(answers: (boolean | Error | 'never')[], ms = 0) {
  const asked: number[] = [];
  const check = () => {
    asked.push(performance.now());
    const answer = answers[Math.min(asked.length - 1, answers.length - 1)];
    if (answer === 'never') return new Promise<boolean>(() => undefined);
    if (ms === 0) return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    return new Promise<boolean>((resolve, reject) => setTimeout(() => (answer instanceof Error ? reject(answer) : resolve(answer)), ms));
  };
  return { check, asked };
}

/** Runs `resolveCommitOutcome` to its end on the fake clock; resolves with its outcome and when it came. */
async function settle(run: Promise<CommitOutcome>): Promise<{ outcome: CommitOutcome; at: number }> {
  const start = performance.now();
  let result: { outcome: CommitOutcome; at: number } | undefined;
  void run.then((outcome) => {
    result = { outcome, at: performance.now() - start };
  });
  for (let i = 0; i < 1_000 && result === undefined; i++) await vi.advanceTimersByTimeAsync(10);
  return result!;
}

describe('what a commit whose answer was lost did', () => {
  it('is "committed" when the rows are there, at the first answer', async () => {
    const { check, asked } = checker([true]);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'committed', at: 0 });
    expect(asked).toHaveLength(1);
    // No timer left behind (the bound's).
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is "not committed" when they are not', async () => {
    const { check, asked } = checker([false]);
    expect((await settle(resolveCommitOutcome(check, 1_000))).outcome).toBe('not committed');
    expect(asked).toHaveLength(1);
  });

  it('asks again every 100 ms while the database cannot answer, and takes its first answer', async () => {
    const start = performance.now();
    const { check, asked } = checker([new Error('ECONNREFUSED'), new Error('starting up'), true]);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'committed', at: 200 });
    expect(asked.map((at) => at - start)).toEqual([0, 100, 200]);
  });

  it('waits for a slow answer that comes within the bound', async () => {
    const { check } = checker([false], 700);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'not committed', at: 700 });
  });

  it('is "unknown" when an answer is on its way at the bound', async () => {
    const { check, asked } = checker(['never']);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'unknown', at: 1_000 });
    expect(asked).toHaveLength(1);
  });

  it('is "unknown" when the answer would come after the bound', async () => {
    const { check } = checker([true], 1_200);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'unknown', at: 1_000 });
  });

  it('is "unknown" at the bound when every question fails, asked every 100 ms until then', async () => {
    const start = performance.now();
    const { check, asked } = checker([new Error('ECONNREFUSED')]);
    expect(await settle(resolveCommitOutcome(check, 1_000))).toEqual({ outcome: 'unknown', at: 1_000 });
    expect(asked.map((at) => at - start)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
  });

  it('pauses no longer than the time left', async () => {
    const start = performance.now();
    const { check, asked } = checker([new Error('ECONNREFUSED'), new Error('ECONNREFUSED'), true], 30);
    expect(await settle(resolveCommitOutcome(check, 150, 100))).toEqual({ outcome: 'unknown', at: 150 });
    expect(asked.map((at) => at - start)).toEqual([0, 130]);
  });

  it('asks for 4 s by default, every 100 ms', async () => {
    expect([COMMIT_CHECK_MS, COMMIT_CHECK_RETRY_MS]).toEqual([4_000, 100]);
    const start = performance.now();
    const { check, asked } = checker([new Error('ECONNREFUSED')]);
    expect(await settle(resolveCommitOutcome(check))).toEqual({ outcome: 'unknown', at: 4_000 });
    expect(asked).toHaveLength(40);
    expect(asked[1] - start).toBe(100);
  });
});
