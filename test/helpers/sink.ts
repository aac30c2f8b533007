/**
 * A real HTTP server on 127.0.0.1 that records every request and answers as told: the test's
 * stand-in for a tracking endpoint when the test is about what goes over the wire, or about
 * faults (statuses, Retry-After, resets, slow answers).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: any;
}

/** What the sink does with one request. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the connection instead of answering (a connection reset). */
  reset?: boolean;
}

export type Behaviour = (request: ReceivedRequest, index: number) => Reply | undefined;

export interface Sink {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Every request received, answered or not, in arrival order. */
  requests: ReceivedRequest[];
  /** Changes how the sink answers from now on. */
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

/** Starts a sink on 127.0.0.1, port 0. By default it answers 200 `{"ok":true}`. */
export async function startSink(behaviour: Behaviour = () => undefined): Promise<Sink> {
  let current = behaviour;
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://sink');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        rawBody,
        body,
      };
      const index = requests.push(request) - 1;
      const reply = current(request, index) ?? {};
      const answer = () => {
        if (reply.reset) {
          req.socket.destroy();
          return;
        }
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '{"ok":true}');
      };
      if (reply.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, reply.delayMs);
        timers.add(t);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      current = next;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
