/** Telling loopback addresses and host names apart from the rest. */
import { isIP } from 'node:net';

/** True for `localhost`, `*.localhost`, `127.0.0.0/8`, `::1` and `::ffff:127.x.x.x`. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1') return true;
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** The host name of a `Host` header (`name:port`, `[v6]:port`), or `undefined` when it is missing. */
export function hostHeaderName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return colon === -1 ? header : header.slice(0, colon);
}
