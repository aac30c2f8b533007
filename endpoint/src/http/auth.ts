/**
 * Which API keys the endpoint accepts, and who may read. With keys configured, only those keys
 * are accepted for tracking; with none, any key that is not a placeholder is (convenient for local
 * development; the endpoint refuses to start that way on a non-loopback address).
 *
 * Reading is never done with a write key (they sit in every proxy's access log): readers have
 * tokens of their own (`--reader NAME=TOKEN[:BOTS][:admin]`), or come through an auth proxy that
 * names them in a header (`--trust-proxy-user HEADER` with `--reader-user NAME[:BOTS][:admin]`).
 * A reader's scope (`BOTS`, names given with `--key NAME=KEY`, or `*`) is the bots it may see.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { checkApiKey, type ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
import { TrackingEndpointError } from '../errors.js';

/** The outcome of checking a request's key. */
export type KeyCheck = { ok: true; bot: string } | { ok: false; error: string; problems: ValidationIssue[] };

/** Who is reading and what they may see. */
export interface ReadAccess {
  /** The reader's name (for logs and the audit of erasures); null when reads are open (loopback, no reader configured). */
  reader: string | null;
  /** The bots (key fingerprints) this reader may see; null = every bot. */
  bots: ReadonlySet<string> | null;
  /** May erase users' data. True when reads are open on loopback with no reader configured. */
  admin: boolean;
}

/** The outcome of checking a read request. */
export type ReadCheck = { ok: true; access: ReadAccess } | { ok: false; status: 401 | 403; error: string };

/** How readers are configured (the strings as given to `--reader`, `--trust-proxy-user`, `--reader-user`). */
export interface ReaderOptions {
  /** `NAME=TOKEN`, `NAME=TOKEN:pizza,support`, `NAME=TOKEN:*:admin`, `NAME=TOKEN:admin`. */
  readers?: readonly string[];
  /** A request header an auth proxy sets to the signed-in user's name (`X-Forwarded-User`). */
  trustProxyUser?: string;
  /** `NAME`, `NAME:pizza,support`, `NAME:*:admin`, `NAME:admin`: the users the proxy may name. */
  readerUsers?: readonly string[];
}

/** Reads open to anyone (loopback, no reader configured). */
export const OPEN_ACCESS: ReadAccess = Object.freeze({ reader: null, bots: null, admin: true });

const MAX_CACHED = 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

interface Reader {
  access: ReadAccess;
  digest: Buffer;
}

/** The SHA-256 of a token or key: what is kept and compared, never the text. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : null;
}

/** True when `token`'s hash equals one of `digests`: every one is compared, in constant time. */
export function matchIndex(token: string, digests: readonly Buffer[]): number {
  const given = digest(token);
  let found = -1;
  // Stryker disable next-line ConditionalExpression: tokens are unique (a reader's token that is another's is refused at start), so at most one digest matches
  for (let i = 0; i < digests.length; i++) if (timingSafeEqual(given, digests[i]) && found === -1) found = i;
  return found;
}

/** Checks API keys and read access for one endpoint. */
export class KeyPolicy {
  private readonly keys: ReadonlySet<string>;
  private readonly keyDigests: Buffer[];
  private readonly fingerprints = new Map<string, string>();
  /** Bot name → fingerprint, and back, for the keys given a name. */
  private readonly byName = new Map<string, string>();
  private readonly names = new Map<string, string>();
  private readonly readers: Reader[] = [];
  private readonly users = new Map<string, ReadAccess>();
  private readonly proxyHeader: string | undefined;

  /**
   * @param keys Accepted API keys; empty to accept any key that is not a placeholder.
   * @param loopbackOnly True when the endpoint listens on a loopback address only; reads then need no token unless a reader is configured.
   * @param botNames The names given to some keys (key → name).
   * @param readerOptions The readers, and the auth proxy's header. Throws a `TrackingEndpointError` naming the bad entry.
   */
  constructor(keys: readonly string[], private readonly loopbackOnly: boolean, botNames: ReadonlyMap<string, string> = new Map(), readerOptions: ReaderOptions = {}) {
    this.keys = new Set(keys);
    this.keyDigests = [...this.keys].map(digest);
    for (const [key, name] of botNames) {
      const bot = this.fingerprint(key);
      this.byName.set(name, bot);
      this.names.set(bot, name);
    }
    const seen = new Set<string>();
    for (const entry of readerOptions.readers ?? []) {
      const reader = this.parseReader(entry, seen);
      this.readers.push(reader);
    }
    const header = readerOptions.trustProxyUser?.trim();
    if (header !== undefined) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) {
        throw new TrackingEndpointError(`--trust-proxy-user must be a header name (such as X-Forwarded-User); got "${header.slice(0, 40)}".`);
      }
      this.proxyHeader = header.toLowerCase();
    }
    for (const entry of readerOptions.readerUsers ?? []) {
      const [name, ...rest] = entry.trim().split(':');
      if (!NAME.test(name)) throw new TrackingEndpointError(`--reader-user "${entry.slice(0, 60)}": the user name must be letters, digits and _ . @ - (up to 64); use NAME[:BOTS][:admin].`);
      if (this.users.has(name)) throw new TrackingEndpointError(`--reader-user: the user "${name}" is given twice; give each user one line.`);
      this.users.set(name, this.scope(`--reader-user ${name}`, name, rest));
    }
    if (this.users.size > 0 && this.proxyHeader === undefined) {
      throw new TrackingEndpointError('--reader-user needs --trust-proxy-user HEADER: the header the auth proxy names the user in.');
    }
  }

  /** Parses `NAME=TOKEN[:BOTS][:admin]`; the token never appears in an error. */
  private parseReader(entry: string, seen: Set<string>): Reader {
    const eq = entry.indexOf('=');
    const name = eq === -1 ? entry.trim() : entry.slice(0, eq).trim();
    const where = `--reader "${name.slice(0, 64)}"`;
    if (eq === -1 || !NAME.test(name)) {
      throw new TrackingEndpointError(`--reader must be NAME=TOKEN (optionally :BOTS and :admin), the name letters, digits and _ . @ - (up to 64); got an entry without${eq === -1 ? ' "="' : ' a valid name'}.`);
    }
    if (seen.has(name)) throw new TrackingEndpointError(`${where} is given twice; give each reader its own name.`);
    seen.add(name);
    const [token, ...rest] = entry.slice(eq + 1).split(':');
    if (token.trim() === '') throw new TrackingEndpointError(`${where} has an empty token; give NAME=TOKEN with a token of its own.`);
    if (token !== token.trim()) throw new TrackingEndpointError(`${where}: the token starts or ends with a space; give it without.`);
    if (this.keys.has(token)) throw new TrackingEndpointError(`${where}: the token is one of the write keys (--key); a reader needs a token of its own, since write keys cannot read.`);
    const tokenDigest = digest(token);
    if (this.readers.some((r) => r.digest.equals(tokenDigest))) throw new TrackingEndpointError(`${where}: the token is another reader's; give each reader its own token.`);
    return { access: this.scope(where, name, rest), digest: tokenDigest };
  }

  /** The access `[BOTS][, admin]` gives: bots by the names given with `--key`, `*` for every bot. */
  private scope(where: string, reader: string, parts: string[]): ReadAccess {
    let admin = false;
    if (parts.length > 0 && parts[parts.length - 1] === 'admin') {
      admin = true;
      parts = parts.slice(0, -1);
    }
    if (parts.length > 1) throw new TrackingEndpointError(`${where}: expected at most BOTS and admin after the token (as pizza,support:admin); got ${parts.length + (admin ? 1 : 0)} parts.`);
    if (parts.length === 0 || parts[0].trim() === '*') return { reader, bots: null, admin };
    const bots = new Set<string>();
    for (const raw of parts[0].split(',')) {
      const bot = raw.trim();
      const fingerprint = this.byName.get(bot);
      if (fingerprint === undefined) {
        const known = [...this.byName.keys()];
        throw new TrackingEndpointError(`${where}: the bot "${bot.slice(0, 64)}" is not a name given with --key NAME=KEY (${known.length > 0 ? `known: ${known.join(', ')}` : 'no key has a name'}); use those names, or * for every bot.`);
      }
      bots.add(fingerprint);
    }
    return { reader, bots, admin };
  }

  /** The name given to a bot's key, if any. */
  nameOf(bot: string): string | undefined {
    return this.names.get(bot);
  }

  /** The bot a reader means by `nameOrBot`: a name given to a key, else the fingerprint as given. */
  botFor(nameOrBot: string): string {
    return this.byName.get(nameOrBot) ?? nameOrBot;
  }

  /** True when no keys are configured and any non-placeholder key is accepted. */
  get acceptsAnyKey(): boolean {
    return this.keys.size === 0;
  }

  /** How many readers have tokens, and whether an auth proxy names them. */
  get readerCount(): number {
    return this.readers.length + this.users.size;
  }

  /** The auth proxy's header (lowercase), when reads trust one. */
  get proxyUserHeader(): string | undefined {
    return this.proxyHeader;
  }

  /** Checks a tracking request's `apiKey`; on success returns the key's fingerprint (the stored `bot`). */
  checkTrackingKey(apiKey: string | null): KeyCheck {
    // Stryker disable next-line ConditionalExpression: a set of strings never has null, so the null test only narrows the type for the call
    if (apiKey === null || !this.keys.has(apiKey)) {
      const problems = checkApiKey(apiKey ?? undefined);
      if (problems.length > 0) return { ok: false, error: 'A real API key is required in the apiKey query parameter.', problems };
      if (!this.acceptsAnyKey) {
        return { ok: false, error: 'Unknown API key: use one of the keys this endpoint was started with (--key).', problems: [{ path: 'apiKey', expected: 'a key this endpoint accepts', received: 'an unknown key' }] };
      }
    }
    return { ok: true, bot: this.fingerprint(apiKey as string) };
  }

  private fingerprint(apiKey: string): string {
    let value = this.fingerprints.get(apiKey);
    // Stryker disable next-line ConditionalExpression: hashing a key again when it is cached gives the same fingerprint
    if (value === undefined) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the cache only saves hashing a key again; clearing it more or less often gives the same fingerprints
      if (this.fingerprints.size >= MAX_CACHED) this.fingerprints.clear();
      value = createHash('sha256').update(apiKey).digest('hex').slice(0, 12);
      this.fingerprints.set(apiKey, value);
    }
    return value;
  }

  /**
   * Who is reading, or why they may not. With `--trust-proxy-user`, the user the proxy names
   * (refused without the header, or for a user not listed). Otherwise a reader token as
   * `Authorization: Bearer <token>` (the page sends the token it signed in with so). On loopback with no
   * reader configured, reads are open (the router has already refused a `Host` that is not the
   * endpoint's, so a web page cannot read through DNS rebinding). A write key never reads.
   */
  checkRead(req: IncomingMessage): ReadCheck {
    if (this.proxyHeader !== undefined) {
      const value = req.headers[this.proxyHeader];
      const user = (Array.isArray(value) ? value[0] : value)?.trim();
      if (!user) return { ok: false, status: 401, error: `Reading needs signing in through the auth proxy (it sets ${this.proxyHeader}); this request has no user.` };
      const access = this.users.get(user);
      if (access === undefined) return { ok: false, status: 403, error: 'The signed-in user has no read access here (--reader-user).' };
      return { ok: true, access };
    }
    const given = bearerToken(req);
    if (given) {
      const i = matchIndex(given, this.readers.map((r) => r.digest));
      if (i !== -1) return { ok: true, access: this.readers[i].access };
    }
    if (this.loopbackOnly && this.readers.length === 0) return { ok: true, access: OPEN_ACCESS };
    if (given && matchIndex(given, this.keyDigests) !== -1) {
      return { ok: false, status: 401, error: 'Reading needs a reader token (--reader NAME=TOKEN), as Authorization: Bearer <token>; write keys (--key) cannot read.' };
    }
    return { ok: false, status: 401, error: 'Reading needs a reader token, as an Authorization: Bearer <token> header (the endpoint\'s readers are given with --reader NAME=TOKEN).' };
  }
}
