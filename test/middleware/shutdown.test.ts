import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterWith, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.close();
});

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('closing the client while turns are running', () => {
  it('lets a running turn finish and delivers all of its records, reply included', async () => {
    const reply = gate();
    const started = gate();
    const adapter = adapterWith(h, async (context) => {
      started.open();
      await reply.opened;
      await context.sendActivity('sorry for the wait');
    });
    const turn = adapter.send(userMessage({ text: 'slow question' }) as never);
    await started.opened;
    const closing = h.client.close(2_000);
    reply.open();
    await turn;
    const { stats } = await closing;
    expect(stats).toMatchObject({ delivered: 2, dropped: 0, failed: 0 });
    expect(h.sink.requests.map((r) => [r.query.type, r.body.text])).toEqual([
      ['incoming', 'slow question'],
      ['outgoing', 'sorry for the wait'],
    ]);
  });

  it('does not wait for a turn that started after close() began, nor past half its deadline', async () => {
    const never = gate();
    const hanging = adapterWith(h, async () => {
      await never.opened;
    });
    void hanging.send(userMessage({ text: 'hangs' }) as never);
    await new Promise((resolve) => setImmediate(resolve));
    const before = Date.now();
    const closing = h.client.close(400);
    // A turn that starts now is not waited for; while close() still waits for the hanging one, its records are taken.
    const late = adapterWith(h, async (context) => void (await context.sendActivity('late reply')));
    await late.send(userMessage({ text: 'late' }) as never);
    const { stats } = await closing;
    const took = Date.now() - before;
    expect(took).toBeGreaterThanOrEqual(190); // half of the 400 ms deadline, waiting for the hanging turn
    expect(took).toBeLessThan(1_000);
    expect(h.sink.requests.map((r) => r.body.text)).toEqual(['late', 'late reply']);
    expect(stats).toMatchObject({ delivered: 2, dropped: 0 });
    never.open();
    // The hanging turn ends after close(): its incoming record is refused and counted, not sent.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(h.client.stats().dropped).toBe(1);
  });
});
