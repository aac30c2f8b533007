/**
 * A TCP proxy between an endpoint and PostgreSQL that reads the messages the endpoint sends, to
 * lose a commit's answer on purpose: the next COMMIT of a transaction that wrote `records` is
 * either forwarded and its answer withheld (the commit lands, the endpoint never hears of it), or
 * withheld itself (the commit never lands), and the endpoint's connection is cut. Every other
 * message, and every other connection, passes through untouched.
 *
 * It reads the frontend protocol (https://www.postgresql.org/docs/current/protocol-message-formats.html):
 * an untyped startup message, then messages of a type byte and a 4-byte length. pg sends a query
 * without parameters (Kysely's `commit`) as a simple Query ('Q'), and one with parameters (the
 * inserts) as Parse ('P'), whose text is what tells a transaction that wrote `records`.
 */
import net from 'node:net';

/** What to do with the next COMMIT of a transaction that wrote records. */
export type CommitFault =
  /** Forward it, wait for the server's answer and drop it, then cut the connection: the records are stored. */
  | 'lose-answer'
  /** Do not forward it; cut the connection: the transaction rolls back, nothing is stored. */
  | 'drop-commit';

export interface CommitProxy {
  /** `url` with the proxy's host and port. */
  urlFor(url: string): string;
  /**
   * Arms `fault` for the next COMMIT of a transaction that inserted into `records`; resolves once
   * it was applied. With `refuseAfter`, the proxy then also cuts every connection and refuses new
   * ones (the database away) until `restore()`.
   */
  next(fault: CommitFault, options?: { refuseAfter?: boolean }): Promise<void>;
  /** Cuts every connection and refuses new ones. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  close(): Promise<void>;
}

interface Armed {
  fault: CommitFault;
  refuseAfter: boolean;
  done: () => void;
}

const COMMIT = /^\s*commit\s*;?\s*$/i;
const INSERT_RECORDS = /^\s*insert\s+into\s+"?records"?\s/i;

/** The text of a Query message's payload, or of a Parse message's query. */
function queryText(type: string, payload: Buffer): string | undefined {
  if (type === 'Q') return payload.toString('utf8', 0, payload.indexOf(0));
  if (type === 'P') {
    const start = payload.indexOf(0) + 1; // after the statement's name
    return payload.toString('utf8', start, payload.indexOf(0, start));
  }
  return undefined;
}

/** Starts a proxy in front of `target` (host and port of a PostgreSQL server). */
export async function startCommitProxy(target: { host: string; port: number }): Promise<CommitProxy> {
  const sockets = new Set<net.Socket>();
  let armed: Armed | undefined;
  let down = false;

  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);

    let pending = Buffer.alloc(0);
    let started = false;
    let wroteRecords = false;
    /** Set while a COMMIT's answer is being withheld: the server's bytes since, up to its ReadyForQuery. */
    let withheld: { fault: Armed; bytes: Buffer } | undefined;

    const apply = (fault: Armed) => {
      forget();
      if (fault.refuseAfter) proxy.cut();
      fault.done();
    };

    upstream.on('data', (chunk: Buffer) => {
      if (withheld === undefined) {
        client.write(chunk);
        return;
      }
      // Messages from the COMMIT on: drop them, and cut once the server is ready for the next query (it committed).
      withheld.bytes = Buffer.concat([withheld.bytes, chunk]);
      let at = 0;
      while (withheld.bytes.length - at >= 5) {
        const length = withheld.bytes.readUInt32BE(at + 1);
        if (withheld.bytes.length - at < 1 + length) break;
        if (withheld.bytes[at] === 0x5a /* Z */) {
          apply(withheld.fault);
          return;
        }
        at += 1 + length;
      }
    });

    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 4) return;
          const length = pending.readUInt32BE(0);
          if (pending.length < length) return;
          upstream.write(pending.subarray(0, length));
          pending = pending.subarray(length);
          started = true;
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readUInt32BE(1);
        if (pending.length < 1 + length) return;
        const message = pending.subarray(0, 1 + length);
        pending = pending.subarray(1 + length);
        const type = String.fromCharCode(message[0]);
        const text = queryText(type, message.subarray(5));
        if (text !== undefined && INSERT_RECORDS.test(text)) wroteRecords = true;
        if (text !== undefined && COMMIT.test(text)) {
          const fault = wroteRecords ? armed : undefined;
          wroteRecords = false;
          if (fault !== undefined) {
            armed = undefined;
            if (fault.fault === 'drop-commit') {
              apply(fault);
              return;
            }
            withheld = { fault, bytes: Buffer.alloc(0) };
          }
        }
        upstream.write(message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  const proxy: CommitProxy = {
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    next(fault, options = {}) {
      return new Promise<void>((done) => {
        armed = { fault, refuseAfter: options.refuseAfter ?? false, done };
      });
    },
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      down = false;
    },
    close() {
      proxy.cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
