/**
 * The client's delivery modules, loaded inside a test: a fault that keeps one from loading fails
 * here (in other files it fails the file's import, which a mutation run counts as no test having
 * run: stryker-mutator/stryker-js#6150). Keep this file free of static imports of src/.
 */
import { describe, expect, it } from 'vitest';

describe('loading the client', () => {
  it('loads the delivery modules, and a client built from them delivers a record', async () => {
    const http = await import('node:http');
    const { TrackingClient } = await import('../../src/client/tracking-client.js');
    const { INITIAL_WINDOW } = await import('../../src/client/concurrency.js');
    const { SLAB_BYTES } = await import('../../src/client/bodies.js');
    const { SEND_DIRECT, MAX_RESPONSE_BODY_CHARS } = await import('../../src/client/transport.js');
    const { SUMMARY_INTERVAL_MS, RUN_GAP_MS } = await import('../../src/client/reporter.js');
    expect([INITIAL_WINDOW, SLAB_BYTES, MAX_RESPONSE_BODY_CHARS, SUMMARY_INTERVAL_MS, RUN_GAP_MS]).toEqual([16, 32 * 1024, 2048, 300_000, 300_000]);
    expect(typeof SEND_DIRECT).toBe('symbol');
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const client = new TrackingClient({ apiKey: 'load-key-1', baseUrl: `http://127.0.0.1:${port}`, logger: false });
      await expect(client.sms.logIncoming({ text: 'hi', userId: 'u' })).resolves.toEqual({ status: 'delivered', httpStatus: 202, attempts: 1 });
      await expect(client.close()).resolves.toMatchObject({ abandoned: 0 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
