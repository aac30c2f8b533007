/** Reading the endpoint's JSON read side over HTTP, with errors that say what to do. */

/**
 * How many times a read answered 503 with `Retry-After` is asked again: the endpoint says so while
 * its views catch up after a burst (or its database is briefly away), and answers once they have.
 */
export const READ_RETRIES = 4;
/** The longest `Retry-After` waited for (s); a longer one is waited this long. */
const MAX_RETRY_AFTER_S = 30;

/** A `Retry-After` of whole seconds, in ms (at most `MAX_RETRY_AFTER_S`); `undefined` when there is none or it is not a number of seconds. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  return Math.min(MAX_RETRY_AFTER_S, Number(value)) * 1000;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * GETs `${baseUrl}${path}` and returns the parsed JSON. A 503 with `Retry-After` is asked again
 * after it, `READ_RETRIES` times at most (`wait` waits; tests give their own). Rejects with an
 * `Error` whose message says what to do when nothing answers, the key is missing, or the answer
 * is an error or not JSON. `key` (a reader token), when given, is sent as `Authorization: Bearer` (needed when the
 * endpoint is not on loopback).
 */
export async function getJson<T>(baseUrl: string, path: string, key?: string, wait: (ms: number) => Promise<void> = sleep): Promise<T> {
  for (let retries = 0; ; retries++) {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      const why = code === 'ECONNREFUSED' ? 'nothing is listening there' : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
      throw new Error(`Cannot reach the tracking endpoint at ${baseUrl} (${why}). Start one with \`serve\`, or pass its address with --url.`);
    }
    const text = await response.text();
    const after = response.status === 503 && retries < READ_RETRIES ? retryAfterMs(response.headers.get('retry-after')) : undefined;
    if (after !== undefined) {
      await wait(after);
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${baseUrl}${path} answered ${response.status} without JSON: is --url the address of this package's endpoint?`);
    }
    if (!response.ok) {
      const message = (body as { error?: unknown })?.error;
      const hint = response.status === 401 ? ' Pass a reader token with --token (or env TRACKING_READER_TOKEN); write keys cannot read.' : '';
      throw new Error(`${path} answered ${response.status}: ${typeof message === 'string' ? message : text.slice(0, 200)}${hint}`);
    }
    return body as T;
  }
}
