/**
 * Measurement 4, the server side: `sink`, a bare `node:http` server that reads each body and
 * answers 200 `{"ok":true,"id":n}`; or `endpoint`, the bundled local tracking endpoint
 * (`src/endpoint`) with validation and durable storage on (a SQLite database in a temporary
 * directory, the endpoint's default `fsync: false`). Each in its own process. The endpoint
 * acknowledges a record once its row is committed and builds the views behind (`views()` says how
 * far behind they were).
 */
import http from 'node:http';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTrackingEndpoint } from '../../endpoint/src/index.js';
import { serve } from '../lib/worker.js';

const mode = process.argv[2] as 'sink' | 'endpoint';

async function startSink(): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      Buffer.concat(chunks);
      const body = `{"ok":true,"id":${++n}}`;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => n,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  if (mode === 'sink') {
    const sink = await startSink();
    serve({ url: () => sink.url, count: () => sink.count(), cpu: () => process.cpuUsage() });
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-endpoint-'));
  const dataFile = join(dir, 'tracking.db');
  const endpoint = await startTrackingEndpoint({ port: 0, database: dataFile, log: () => undefined, summaryIntervalMs: 0 });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  serve({
    url: () => endpoint.url,
    count: () => endpoint.store.count(),
    /**
     * Where the views stand after the load: a read waits until they hold every record stored, so
     * the time of one read (`/api/summary`) is how long they took to catch up; and the records
     * they count, to compare with those stored.
     */
    async views() {
      const started = performance.now();
      const res = await fetch(`${endpoint.url}/api/summary`);
      const summary = (await res.json()) as { records: number };
      return { waitedMs: performance.now() - started, records: summary.records, stored: await endpoint.store.count() };
    },
    dataFileBytes: () => statSync(dataFile).size,
    cpu: () => process.cpuUsage(),
  });
}

void main();
