/**
 * The default transport: Node's own http/https with keep-alive. No dependencies, and the
 * cheapest in CPU per request on Node.
 */
import http from 'node:http';
import https from 'node:https';
import { MAX_RESPONSE_BODY_CHARS, type Transport, type TransportRequest, type TransportResponse } from '../transport.js';

/** Options of the default transport. */
export interface NodeHttpTransportOptions {
  /** Most sockets open at once per host. Default 16 (the client passes its `maxConcurrency`, default 256). */
  maxSockets?: number;
  /** Extra options for the keep-alive agents (for example `ca` for a private CA). */
  agentOptions?: https.AgentOptions;
}

const MAX_RESPONSE_BODY_BYTES = 3 * MAX_RESPONSE_BODY_CHARS;

interface Target {
  protocol: string;
  hostname: string;
  port: string;
  path: string;
}

function timeoutError(ms: number): Error {
  const error = new Error(`tracking request timed out after ${ms} ms`) as Error & { code: string };
  error.code = 'ETIMEDOUT';
  return error;
}

/**
 * Creates the default transport: one keep-alive agent per protocol, sockets reused across
 * records, idle sockets that never keep the process alive, and a hard timeout per request.
 */
export function createNodeHttpTransport(options: NodeHttpTransportOptions = {}): Transport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, ...options.agentOptions };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  // The client sends to a handful of URLs; parsing each once saves CPU on every request.
  const targets = new Map<string, Target>();

  function target(url: string): Target {
    let t = targets.get(url);
    if (t === undefined) {
      const u = new URL(url);
      t = { protocol: u.protocol, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port, path: `${u.pathname}${u.search}` };
      if (targets.size > 256) targets.clear();
      targets.set(url, t);
    }
    return t;
  }

  function send(request: TransportRequest): Promise<TransportResponse> {
    return new Promise<TransportResponse>((resolve, reject) => {
      const t = target(request.url);
      const secure = t.protocol === 'https:';
      const headers: Record<string, string | number> = { ...request.headers, 'content-length': Buffer.byteLength(request.body) };
      const req = (secure ? https : http).request({
        protocol: t.protocol,
        hostname: t.hostname,
        port: t.port,
        path: t.path,
        method: 'POST',
        headers,
        agent: secure ? httpsAgent : httpAgent,
      });
      let settled = false;
      const timer = setTimeout(() => req.destroy(timeoutError(request.timeoutMs)), request.timeoutMs);
      const finish = (error: Error | undefined, response?: TransportResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(response as TransportResponse);
      };
      req.on('error', (error) => finish(error));
      req.on('response', (res) => {
        // Raw chunks, decoded once at the end (most answers have an empty or tiny body): enough
        // bytes for MAX_RESPONSE_BODY_CHARS characters, as one UTF-16 character takes at most 3 UTF-8 bytes.
        let chunks: Buffer[] | undefined;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          if (bytes < MAX_RESPONSE_BODY_BYTES) {
            (chunks ??= []).push(chunk);
            bytes += chunk.length;
          }
        });
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          const body = chunks === undefined ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8').slice(0, MAX_RESPONSE_BODY_CHARS);
          finish(undefined, { status: res.statusCode ?? 0, retryAfter, body });
        });
        res.on('error', (error) => finish(error));
        res.on('aborted', () => finish(Object.assign(new Error('tracking response aborted'), { code: 'ECONNRESET' })));
      });
      req.end(request.body);
    });
  }

  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
