/**
 * Reading the endpoint's JSON read side from the page, downloading its CSV and JSON exports, and
 * following its live stream. The reader token, when the page has one, goes in an `Authorization`
 * header on every read, the live stream included (it is read with fetch, not EventSource, which
 * cannot send headers), never in a URL (a download too is fetched with the header, then saved
 * from memory), and is never logged or shown.
 */
import type { CatchingUp, RecordsEvent } from '../../types.js';

/** A read that the endpoint refused or could not answer. */
export class ReadError extends Error {
  override readonly name = 'ReadError';

  /**
   * @param catchingUp With a 503 for a read that waited for the views past its bound: how far behind they are.
   * @param retryAfterMs Then: when to read again (the answer's `Retry-After`).
   */
  constructor(message: string, readonly status: number, readonly catchingUp?: CatchingUp, readonly retryAfterMs = MIN_RETRY_MS) {
    super(message);
  }
}

/** The longest `Retry-After` waited for before reading again (ms). */
const MAX_RETRY_AFTER_MS = 30_000;

/** A `Retry-After` of whole seconds, in ms: at least `MIN_RETRY_MS`, at most `MAX_RETRY_AFTER_MS`. */
export function retryAfterMs(value: string | null): number {
  const seconds = value !== null && /^\d+$/.test(value.trim()) ? Number(value) : 0;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_MS, seconds * 1000));
}

/** The state of the live stream, as the page shows it. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

/** Query parameters; `undefined` and `''` ones are left out. */
export type Params = Record<string, string | number | undefined>;

const MIN_RETRY_MS = 1000;
const MAX_RETRY_MS = 10_000;

/** Reads from the endpoint that served the page. */
export class ReadApi {
  /**
   * @param key One of the endpoint's reader tokens (needed off loopback or once readers are configured), or `null`.
   * @param onUnauthorized Called when a read is answered 401: the token is no longer accepted.
   */
  constructor(private readonly key: string | null, private readonly onUnauthorized?: () => void) {}

  /** Throws the `ReadError` for a refused read, telling `onUnauthorized` of a 401 first. */
  private refused(error: ReadError): never {
    if (error.status === 401) this.onUnauthorized?.();
    throw error;
  }

  /** The address of a read (relative to the page, e.g. `api/users`), as a link shows it: never with the key. */
  url(path: string, params: Params = {}): string {
    const url = new URL(path, document.baseURI);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  private headers(): HeadersInit {
    return this.key === null ? {} : { Authorization: `Bearer ${this.key}` };
  }

  /** GETs `path` (relative to the page, e.g. `api/users`) and parses the JSON. Rejects with a `ReadError` that carries the endpoint's message. */
  async get<T>(path: string, params?: Params): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url(path, params), { headers: this.headers(), cache: 'no-store' });
    } catch {
      throw new ReadError('The endpoint does not answer. Is it still running?', 0);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const { error, catchingUp } = (body ?? {}) as { error?: unknown; catchingUp?: CatchingUp };
      const behind = response.status === 503 && typeof catchingUp?.behindRecords === 'number' ? catchingUp : undefined;
      this.refused(new ReadError(typeof error === 'string' ? error : `The endpoint answered ${response.status}.`, response.status, behind, retryAfterMs(response.headers.get('Retry-After'))));
    }
    return body as T;
  }

  /**
   * Downloads a read (`format` in `params` says CSV or JSON) as a file named `fileName`. Rejects
   * with a `ReadError` that carries the endpoint's message when it refuses.
   */
  async download(path: string, params: Params, fileName: string): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.url(path, params), { headers: this.headers(), cache: 'no-store' });
    } catch {
      throw new ReadError('The endpoint does not answer. Is it still running?', 0);
    }
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => undefined);
      const error = (body as { error?: unknown } | undefined)?.error;
      this.refused(new ReadError(typeof error === 'string' ? error : `The endpoint answered ${response.status}.`, response.status));
    }
    const href = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = href;
    link.download = fileName;
    link.hidden = true;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
  }

  /**
   * Follows `api/events`: calls `onRecords` with each `records` event and `onStatus` when the
   * stream connects or drops. Reconnects after a drop, waiting 1 s and up to 10 s; stops for
   * good on 401 (telling `onUnauthorized`) or 403. Returns a function that stops following.
   */
  follow(onRecords: (event: RecordsEvent) => void, onStatus: (status: LiveStatus) => void): () => void {
    const abort = new AbortController();
    const run = async () => {
      let wait = MIN_RETRY_MS;
      onStatus('connecting');
      while (!abort.signal.aborted) {
        try {
          const response = await fetch(this.url('api/events'), { headers: this.headers(), signal: abort.signal, cache: 'no-store' });
          if (response.status === 401 || response.status === 403) {
            onStatus('refused');
            if (response.status === 401) this.onUnauthorized?.();
            return;
          }
          if (response.ok && response.body) {
            onStatus('live');
            wait = MIN_RETRY_MS;
            await readEvents(response.body, (name, data) => {
              if (name === 'records') onRecords(JSON.parse(data) as RecordsEvent);
            });
          }
        } catch {
          // dropped: reconnect below
        }
        if (abort.signal.aborted) return;
        onStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(MAX_RETRY_MS, wait * 2);
      }
    };
    void run();
    return () => abort.abort();
  }
}

/** Reads a `text/event-stream` body until it ends, calling `onEvent` with each event's name and data. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (name: string, data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent(name, data.join('\n'));
      end = buffer.indexOf('\n\n');
    }
  }
}
