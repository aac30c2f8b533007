/**
 * A client that explains itself: each failure names the endpoint (never the key) and says what to
 * check; failures a retry cannot fix are not retried.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type TrackingClientOptions, type Transport } from '../../src/index.js';
import { endpointOf, errorCode, hintFor, isPermanentNetworkError, proxyNote } from '../../src/client/diagnose.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { closedPort } from '../helpers/ports.js';

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

/** A transport that fails every request as a network library would: with this code, name and message. */
function failingTransport(fields: { code?: string; name?: string; message?: string }): Transport {
  return {
    async send() {
      const error = new Error(fields.message ?? 'request failed') as Error & { code?: string };
      if (fields.name !== undefined) error.name = fields.name;
      if (fields.code !== undefined) error.code = fields.code;
      throw error;
    },
  };
}

describe('what each failure says', () => {
  it('403 is the key too: the same hint as 401', async () => {
    sink.behave(() => ({ status: 403 }));
    const error = await failure({ baseUrl: sink.url });
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toBe(`The tracking endpoint refused the API key (HTTP 403). Check TRACKING_API_KEY (or the apiKey option): ${sink.url}/track does not accept it.`);
  });

  it('a 408: retried, and said to have failed (not to be failing like a 5xx)', async () => {
    sink.behave(() => ({ status: 408 }));
    const error = await failure({ baseUrl: sink.url, maxAttempts: 2 });
    expect(error.reason).toBe('retries-exhausted');
    expect(error.message).toBe(`Gave up the sms incoming record after 2 attempts; the last failed with HTTP 408. The request to ${sink.url}/track failed.`);
  });

  it('a 5xx: says the endpoint is failing and is retried', async () => {
    sink.behave(() => ({ status: 500 }));
    const error = await failure({ baseUrl: sink.url, maxAttempts: 2 });
    expect(error.message).toBe(`Gave up the sms incoming record after 2 attempts; the last failed with HTTP 500. ${sink.url}/track is failing (HTTP 500); it is retried while it recovers.`);
  });

  it('an answer slower than requestTimeoutMs: says the endpoint did not answer in time', async () => {
    sink.behave(() => ({ delayMs: 1_000 }));
    const error = await failure({ baseUrl: sink.url, maxAttempts: 1, requestTimeoutMs: 50 });
    expect(error.message).toBe(`Gave up the sms incoming record after 1 attempts; the last failed with ETIMEDOUT. ${sink.url}/track did not answer in time (requestTimeoutMs).`);
  });

  it('a connection reset: says the endpoint closed the connection', async () => {
    sink.behave(() => ({ reset: true }));
    const error = await failure({ baseUrl: sink.url, maxAttempts: 1 });
    expect(error.message).toContain(`${sink.url}/track closed the connection.`);
  });

  it('names a timeout by its code, its name or its message, and a closed connection by ECONNRESET or EPIPE', async () => {
    const cases: Array<[Parameters<typeof failingTransport>[0], string]> = [
      [{ code: 'ETIMEDOUT' }, 'did not answer in time (requestTimeoutMs).'],
      [{ name: 'TimeoutError' }, 'did not answer in time (requestTimeoutMs).'],
      [{ message: 'the operation timed out' }, 'did not answer in time (requestTimeoutMs).'],
      [{ message: 'Request Timeout' }, 'did not answer in time (requestTimeoutMs).'],
      [{ message: 'time out' }, 'did not answer in time (requestTimeoutMs).'],
      [{ code: 'ECONNRESET' }, 'closed the connection.'],
      [{ code: 'EPIPE' }, 'closed the connection.'],
      [{ code: 'EAI_AGAIN' }, 'The host name 127.0.0.1 does not resolve: check TRACKING_BASE_URL.'],
      [{ code: 'ENOTFOUND' }, 'The host name 127.0.0.1 does not resolve: check TRACKING_BASE_URL.'],
      [{ code: 'ECONNREFUSED' }, 'Nothing is listening at http://127.0.0.1:9/track: is the tracking endpoint running at that address (TRACKING_BASE_URL)?'],
      [{ code: 'EWHATEVER', message: 'odd' }, 'The request to http://127.0.0.1:9/track failed.'],
      [{ code: 5 as unknown as string, message: 'odd' }, 'The request to http://127.0.0.1:9/track failed.'],
    ];
    for (const [fields, said] of cases) {
      const error = await failure({ baseUrl: 'http://127.0.0.1:9', maxAttempts: 1, transport: failingTransport(fields) });
      expect(error.reason, JSON.stringify(fields)).toBe('retries-exhausted');
      expect(error.message.endsWith(said), `${JSON.stringify(fields)}: ${error.message}`).toBe(true);
    }
  });

  it('gives up at once on TLS and HTTP protocol errors, by code; a code that only contains one is retried', async () => {
    const permanent = [
      'EPROTO',
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'CERT_HAS_EXPIRED',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_GET_ISSUER_CERT',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'HPE_INVALID_CONSTANT',
    ];
    for (const code of permanent) {
      const error = await failure({ baseUrl: 'http://127.0.0.1:9', maxAttempts: 3, transport: failingTransport({ code }) });
      expect(error.reason, code).toBe('rejected');
      expect(error.attempts, code).toBe(1);
      expect(error.message).toBe(
        `Gave up the sms incoming record without retrying: TLS or protocol error talking to http://127.0.0.1:9/track (${code}): check http:// vs https:// in TRACKING_BASE_URL, the certificate, and any proxy in between.`,
      );
    }
    for (const code of ['XEPROTO', 'UNABLE_TO_DECRYPT', 'ECERT_']) {
      const error = await failure({ baseUrl: 'http://127.0.0.1:9', maxAttempts: 2, transport: failingTransport({ code }) });
      expect(error.reason, code).toBe('retries-exhausted');
      expect(error.attempts, code).toBe(2);
    }
  });
});

describe('the proxy note', () => {
  const url = 'https://tracking.example.com/analytics';
  const note = (name: string, host = 'tracking.example.com') =>
    `Note: ${name} is set, but the default transport (node:http) does not use it and connects to ${host} directly. If this process can only reach ${host} through that proxy, pass a transport that uses it: createAxiosTransport() does (axios reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY).`;

  it("names the variable of the endpoint's scheme, in either case", () => {
    expect(proxyNote(url, { HTTPS_PROXY: 'http://p:3128' }, true)).toBe(note('HTTPS_PROXY'));
    expect(proxyNote(url, { https_proxy: 'http://p:3128' }, true)).toBe(note('https_proxy'));
    expect(proxyNote('http://tracking.example.com', { http_proxy: 'http://p:3128' }, true)).toBe(note('http_proxy'));
    expect(proxyNote('http://[::1]:3979', { HTTP_PROXY: 'http://p:3128' }, true)).toBe(note('HTTP_PROXY', '::1'));
    expect(proxyNote('http://Tracking.Example.com', { HTTP_PROXY: 'http://p:3128' }, true)).toBe(note('HTTP_PROXY', 'tracking.example.com'));
  });

  it('says nothing for the other scheme, a blank variable, a transport of the user\'s own, or a URL it cannot read', () => {
    expect(proxyNote(url, { HTTP_PROXY: 'http://p:3128' }, true)).toBeUndefined();
    expect(proxyNote(url, { HTTPS_PROXY: '  ' }, true)).toBeUndefined();
    expect(proxyNote(url, { HTTPS_PROXY: '', https_proxy: 'http://p' }, true)).toBe(note('https_proxy'));
    expect(proxyNote(url, { HTTPS_PROXY: 'http://p:3128' }, false)).toBeUndefined();
    expect(proxyNote('not a url', { HTTPS_PROXY: 'http://p:3128', HTTP_PROXY: 'http://p:3128' }, true)).toBeUndefined();
  });

  it('says nothing for a host NO_PROXY lists: by name, domain, *.domain, with a port, or *; in either case of the variable', () => {
    for (const noProxy of ['tracking.example.com', '.example.com', '*.example.com', 'example.com', 'other.org, example.com:443', '*', 'other.org\texample.com', 'EXAMPLE.COM']) {
      expect(proxyNote(url, { HTTPS_PROXY: 'http://p', NO_PROXY: noProxy }, true), noProxy).toBeUndefined();
    }
    expect(proxyNote(url, { HTTPS_PROXY: 'http://p', no_proxy: 'example.com' }, true)).toBeUndefined();
  });

  it('still says it when NO_PROXY lists other hosts, or a name the host merely ends with', () => {
    for (const noProxy of ['ample.com', 'other.example.com', 'tracking.example', ',,', 'example.com.evil', '**']) {
      expect(proxyNote(url, { HTTPS_PROXY: 'http://p', NO_PROXY: noProxy }, true), noProxy).toBe(note('HTTPS_PROXY'));
    }
    // An empty entry (a trailing comma) bypasses nothing, not even a host written with its final dot.
    expect(proxyNote('https://tracking.example.com./', { HTTPS_PROXY: 'http://p', NO_PROXY: 'other.org,' }, true)).toBe(note('HTTPS_PROXY', 'tracking.example.com.'));
  });

  it('is added to a network failure of the default transport and to a proxy\'s 407, not to other statuses', async () => {
    const env = { HTTP_PROXY: 'http://proxy.example:3128' };
    sink.behave(() => ({ status: 407 }));
    const proxied = await failure({ baseUrl: sink.url, env });
    expect(proxied.message.endsWith(note('HTTP_PROXY', '127.0.0.1'))).toBe(true);
    sink.behave(() => ({ status: 404 }));
    expect((await failure({ baseUrl: sink.url, env })).message).not.toContain('HTTP_PROXY');
    sink.behave(() => ({ reset: true }));
    expect((await failure({ baseUrl: sink.url, env, maxAttempts: 1 })).message.endsWith(`${sink.url}/track closed the connection. ${note('HTTP_PROXY', '127.0.0.1')}`)).toBe(true);
  });
});

describe('errorCode and endpointOf', () => {
  it('reads a string code only, and an endpoint without its query', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'EPIPE' }))).toBe('EPIPE');
    expect(errorCode(Object.assign(new Error('x'), { code: 42 }))).toBeUndefined();
    expect(errorCode(undefined)).toBeUndefined();
    expect(isPermanentNetworkError(undefined)).toBe(false);
    expect(endpointOf('http://h:1/base/track?apiKey=secret&v=1')).toBe('http://h:1/base/track');
    expect(endpointOf('not a url')).toBe('the tracking endpoint');
    expect(hintFor('not a url', undefined, Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe('The host name the tracking endpoint does not resolve: check TRACKING_BASE_URL.');
  });
});
