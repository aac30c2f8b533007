/**
 * A client that explains itself: each failure names the endpoint (never the key) and says what to
 * check; failures a retry cannot fix are not retried.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type TrackingClientOptions } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'diag-key-5f3e9a21';
const fast = { initialBackoffMs: 5, maxBackoffMs: 10, requestTimeoutMs: 2_000, logger: false } satisfies TrackingClientOptions;

let sink: Sink;
beforeEach(async () => {
  sink = await startSink();
});
afterEach(async () => {
  await sink.close();
});

async function failure(options: TrackingClientOptions): Promise<TrackingDeliveryError> {
  const client = new TrackingClient({ apiKey: KEY, ...fast, ...options });
  const error = await client.sms.logIncoming({ text: 'hi', userId: 'u' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await client.close(1_000);
  expect(error).toBeInstanceOf(TrackingDeliveryError);
  expect(String((error as Error).message)).not.toContain(KEY);
  return error as TrackingDeliveryError;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('failure messages', () => {
  it('connection refused: asks whether the endpoint runs at that address', async () => {
    const port = await closedPort();
    const error = await failure({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 2 });
    expect(error.reason).toBe('retries-exhausted');
    expect(error.attempts).toBe(2);
    expect(error.message).toContain(`Nothing is listening at http://127.0.0.1:${port}/track: is the tracking endpoint running at that address (TRACKING_BASE_URL)?`);
  });

  it('a TLS or protocol mismatch (https to an http server) is not retried, and says to check http vs https', async () => {
    const port = new URL(sink.url).port;
    const error = await failure({ baseUrl: `https://127.0.0.1:${port}`, maxAttempts: 5 });
    expect(error.reason).toBe('rejected');
    expect(error.attempts).toBe(1);
    expect(error.message).toMatch(new RegExp(`TLS or protocol error talking to https://127\\.0\\.0\\.1:${port}/track \\((EPROTO|ERR_SSL_[A-Z_]+)\\): check http:// vs https://`));
  });

  it('401: names the endpoint that does not accept the key, and says which setting to check', async () => {
    sink.behave(() => ({ status: 401, body: `{"error":"bad key ${KEY}"}` }));
    const error = await failure({ baseUrl: sink.url });
    expect(error.reason).toBe('unauthorized');
    expect(error.attempts).toBe(1);
    expect(error.message).toContain(`Check TRACKING_API_KEY (or the apiKey option): ${sink.url}/track does not accept it.`);
  });

  it('404: not retried, says the path in TRACKING_BASE_URL is wrong', async () => {
    sink.behave(() => ({ status: 404 }));
    const error = await failure({ baseUrl: `${sink.url}/wrong` });
    expect(error.reason).toBe('rejected');
    expect(error.attempts).toBe(1);
    expect(error.message).toContain(`${sink.url}/wrong/track does not exist: check the path in TRACKING_BASE_URL.`);
  });

  it('a host name that does not resolve: names the host', async () => {
    const error = await failure({ baseUrl: 'http://tracking.invalid', maxAttempts: 1 });
    expect(error.message).toContain('The host name tracking.invalid does not resolve: check TRACKING_BASE_URL.');
  });
});
