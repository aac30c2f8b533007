/** Reads a request body up to a size limit. */
import type { IncomingMessage } from 'node:http';

/** The outcome of `readBody`. */
export type BodyResult =
  | { ok: true; text: string }
  /** The body is (or says it is) larger than the limit; reading stopped. */
  | { ok: false; reason: 'too-large' }
  /** The client went away or the connection failed before the body was complete. */
  | { ok: false; reason: 'aborted' };

/**
 * Reads the whole body as UTF-8 text. Stops reading as soon as the body (or its declared
 * Content-Length) exceeds `limit` bytes. Never rejects; keeps an `error` listener on `req` so a
 * connection reset never becomes an unhandled error.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.resolve({ ok: false, reason: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Finishing twice (a 'close' after the end, say) only resolves a settled promise again and removes a listener already removed.
    const finish = (result: BodyResult) => {
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ ok: false, reason: 'too-large' });
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      // Stryker disable next-line ConditionalExpression: one chunk is decoded as is only to skip a copy; concatenating it gives the same text
      const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
      finish({ ok: true, text });
    };
    const onAbort = () => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}
