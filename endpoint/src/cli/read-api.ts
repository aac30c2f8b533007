/** Reading the endpoint's JSON read side over HTTP, with errors that say what to do. */

/**
 * GETs `${baseUrl}${path}` and returns the parsed JSON. Rejects with an `Error` whose message says
 * what to do when nothing answers, the key is missing, or the answer is an error or not JSON.
 * `key`, when given, is sent as `Authorization: Bearer` (needed when the endpoint is not on loopback).
 */
export async function getJson<T>(baseUrl: string, path: string, key?: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    const why = code === 'ECONNREFUSED' ? 'nothing is listening there' : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
    throw new Error(`Cannot reach the tracking endpoint at ${baseUrl} (${why}). Start one with \`serve\`, or pass its address with --url.`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${baseUrl}${path} answered ${response.status} without JSON: is --url the address of this package's endpoint?`);
  }
  if (!response.ok) {
    const message = (body as { error?: unknown })?.error;
    const hint = response.status === 401 ? ' Pass one of the endpoint\'s keys with --key.' : '';
    throw new Error(`${path} answered ${response.status}: ${typeof message === 'string' ? message : text.slice(0, 200)}${hint}`);
  }
  return body as T;
}
