/**
 * Which API keys the endpoint accepts, and who may read. With keys configured, only those keys
 * are accepted; with none, any key that is not a placeholder is (convenient for local
 * development; the endpoint refuses to start that way on a non-loopback address).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { checkApiKey, type ValidationIssue } from 'botbuilder-conversation-analytics/protocol';

/** The outcome of checking a request's key. */
export type KeyCheck = { ok: true; bot: string } | { ok: false; error: string; problems: ValidationIssue[] };

const MAX_CACHED = 1024;

/** Checks API keys and read access for one endpoint. */
export class KeyPolicy {
  private readonly keys: ReadonlySet<string>;
  private readonly fingerprints = new Map<string, string>();
  /** Bot name → fingerprint, and back, for the keys given a name. */
  private readonly byName = new Map<string, string>();
  private readonly names = new Map<string, string>();

  /**
   * @param keys Accepted API keys; empty to accept any key that is not a placeholder.
   * @param loopbackOnly True when the endpoint listens on a loopback address only; reads then need no key.
   * @param botNames The names given to some keys (key → name).
   */
  constructor(keys: readonly string[], private readonly loopbackOnly: boolean, botNames: ReadonlyMap<string, string> = new Map()) {
    this.keys = new Set(keys);
    for (const [key, name] of botNames) {
      const bot = this.fingerprint(key);
      this.byName.set(name, bot);
      this.names.set(bot, name);
    }
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
   * Whether a read request may see the data, or why not. On loopback, no key is needed (the
   * router has already refused a `Host` that is not the endpoint's, so a web page cannot read
   * through DNS rebinding); elsewhere a configured key is needed, as `apiKey` or
   * `Authorization: Bearer <key>`.
   */
  checkRead(req: IncomingMessage, apiKey: string | null): { ok: true } | { ok: false; status: 401 | 403; error: string } {
    if (this.loopbackOnly) return { ok: true };
    const auth = req.headers.authorization;
    const key = apiKey ?? (auth?.startsWith('Bearer ') ? auth.slice(7).trim() : null);
    // Stryker disable next-line ConditionalExpression: a set of strings never has null, so the null test only narrows the type for the call
    if (key !== null && this.keys.has(key)) return { ok: true };
    return { ok: false, status: 401, error: 'Reading needs one of the endpoint\'s API keys, as ?apiKey= or an Authorization: Bearer header.' };
  }
}
