/**
 * A transport over axios, for users who bring their own configured instance (proxies,
 * interceptors, a custom CA). axios is not a dependency of this package: pass an instance, or
 * have `axios` installed (botbuilder already depends on it).
 */
import { safeCause } from '../redact.js';
import { MAX_RESPONSE_BODY_CHARS, type Transport, type TransportRequest, type TransportResponse } from '../transport.js';

/** The part of an axios instance this transport uses. */
export interface AxiosLike {
  request(config: Record<string, unknown>): Promise<{ status: number; headers?: unknown; data?: unknown }>;
}

/** Options of the axios transport. */
export interface AxiosTransportOptions {
  /** Your configured axios instance. Default: the `axios` package's default instance, loaded on first use. */
  axios?: AxiosLike;
}

function header(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const h = headers as { get?: (n: string) => unknown } & Record<string, unknown>;
  const value = typeof h.get === 'function' ? h.get(name) : h[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Creates a transport that sends through axios. Every status is returned to the client (no
 * axios rejection for 4xx/5xx). Network errors are re-raised as plain errors with name, message
 * and code only: axios errors carry the full request URL and config, which hold the API key.
 */
export function createAxiosTransport(options: AxiosTransportOptions = {}): Transport {
  let instance: AxiosLike | undefined = options.axios;

  async function client(): Promise<AxiosLike> {
    if (instance === undefined) {
      const mod = (await import('axios')) as unknown as { default: AxiosLike };
      instance = mod.default;
    }
    return instance;
  }

  async function send(request: TransportRequest): Promise<TransportResponse> {
    const axios = await client();
    try {
      const res = await axios.request({
        url: request.url,
        method: 'POST',
        data: request.body,
        headers: request.headers,
        timeout: request.timeoutMs,
        validateStatus: () => true,
        responseType: 'text',
        transformResponse: [(data: unknown) => data],
        maxRedirects: 0,
      });
      const body = typeof res.data === 'string' ? res.data.slice(0, MAX_RESPONSE_BODY_CHARS) : undefined;
      return { status: res.status, retryAfter: header(res.headers, 'retry-after'), body };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const safe = safeCause(error);
      // axios reports its own timeout as ECONNABORTED; the client treats ETIMEDOUT as a timeout (safeCause keeps any other code).
      if (code === 'ECONNABORTED') (safe as Error & { code?: string }).code = 'ETIMEDOUT';
      throw safe;
    }
  }

  return { send };
}
