/**
 * Turning what a caller logs into a record ready to queue: checked against the spec, through the
 * user's `ignoreUsers`, `redact` and `beforeSend` hooks (and checked again after them), serialized,
 * and measured against `maxBodyBytes`. Nothing here sends or queues anything.
 */
import { validate, type MessengerOutgoing, type PlatformKind, type RecordType, type ValidationIssue } from '../protocol/index.js';
import type { SkippedResult } from './delivery-queue.js';
import { TrackingValidationError } from './errors.js';
import type { ResolvedOptions, TrackedRecord, TrackingClientOptions } from './options.js';
import { userIdOf } from './records.js';
import { moveCurrency } from './currency.js';

const OVERSIZE_SAFE_FACTOR = 3; // a UTF-16 code unit is at most 3 UTF-8 bytes

/** What became of a logged record: ready to queue (as JSON, on its user's lane), skipped on purpose, or refused. */
export type Built =
  | { status: 'ready'; json: string; userId: string }
  | { status: 'skipped'; result: SkippedResult }
  | { status: 'refused'; error: TrackingValidationError };

export type RecordHooks = Pick<TrackingClientOptions, 'redact' | 'ignoreUsers' | 'beforeSend'>;

export class RecordBuilder {
  private readonly ignoredUsers: ReadonlySet<string> | undefined;

  /** `onAccessToken` hears each messenger page access token seen, so it can be kept out of every report. */
  constructor(
    private readonly options: Pick<ResolvedOptions, 'allowReferralEvent' | 'maxBodyBytes'>,
    private readonly hooks: RecordHooks,
    private readonly onAccessToken: (token: string) => void,
  ) {
    this.ignoredUsers = Array.isArray(hooks.ignoreUsers) ? new Set(hooks.ignoreUsers as string[]) : undefined;
  }

  /** Builds the record of `body`, logged as `type` on `platform`; `label` names it in errors (e.g. `sms incoming`). */
  build(platform: PlatformKind, type: RecordType, body: unknown, label: string): Built {
    if (type === 'event') {
      // A revenue event's typed currency goes where the endpoint reads it (metadata.currency).
      const moved = moveCurrency(body);
      if ('issue' in moved) return refused(`The ${label} record`, [moved.issue]);
      body = moved.body;
    }
    let record: TrackedRecord = { type, platform, body };
    let issues = this.validate(record);
    if (issues.length > 0) return refused(`The ${label} record`, issues);

    this.hearToken(record);
    // Stryker disable next-line StringLiteral: every record that passed validation has a user; '' is for the type checker only
    const userId = userIdOf(record) ?? '';
    if (this.isIgnored(userId, record)) return { status: 'skipped', result: { status: 'skipped', reason: 'ignored-user' } };
    // Stryker disable next-line ConditionalExpression: without hooks, the block would check the same record again and find the same: it only saves that work
    if (this.hooks.redact !== undefined || this.hooks.beforeSend !== undefined) {
      try {
        if (this.hooks.redact !== undefined) record = this.hooks.redact(record) ?? record;
        if (this.hooks.beforeSend !== undefined) {
          const result = this.hooks.beforeSend(record);
          if (result === null) return { status: 'skipped', result: { status: 'skipped', reason: 'dropped-by-before-send' } };
          record = result ?? record;
        }
      } catch (error) {
        return refused(`The ${label} record`, [{ path: '(hook)', expected: 'redact/beforeSend to return a record', received: `an error (${(error as Error)?.message ?? error})` }]);
      }
      issues = this.validate(record);
      if (issues.length > 0) return refused(`The ${label} record (after redact/beforeSend)`, issues);
      this.hearToken(record); // a hook may have put a token in
    }

    let json: string;
    try {
      json = JSON.stringify(record.body);
    } catch (error) {
      return refused(`The ${label} record`, [{ path: '(root)', expected: 'JSON-serializable data (no cycles, no BigInt)', received: (error as Error).name }]);
    }
    const { maxBodyBytes } = this.options;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut that skips counting bytes; when json.length * 3 <= maxBodyBytes the bytes cannot pass it either
    if (json.length * OVERSIZE_SAFE_FACTOR > maxBodyBytes && Buffer.byteLength(json) > maxBodyBytes) {
      return refused(`The ${label} record`, [{ path: '(root)', expected: `at most ${maxBodyBytes} bytes of JSON (maxBodyBytes)`, received: `${Buffer.byteLength(json)} bytes` }]);
    }
    // Stryker disable next-line StringLiteral: the caller tells a ready record by its not being refused or skipped
    return { status: 'ready', json, userId };
  }

  /**
   * Checks a record read back from `persistDir` as a new one is checked (the spec, `maxBodyBytes`)
   * and hears its access token, so an echo of it is masked too. The hooks are not run again: they
   * ran when the record was first logged. Returns its user, or why it cannot be re-sent.
   */
  checkSaved(record: TrackedRecord): { userId: string } | { problem: string } {
    const label = `${record.platform} ${record.type}`;
    if (this.validate(record).length > 0) return { problem: `not a valid ${label} record` };
    this.hearToken(record);
    const json = JSON.stringify(record.body);
    if (Buffer.byteLength(json) > this.options.maxBodyBytes) return { problem: 'larger than maxBodyBytes' };
    return { userId: userIdOf(record) ?? '' };
  }

  private hearToken(record: TrackedRecord): void {
    if (record.platform === 'messenger' && record.type === 'outgoing') {
      const token = (record.body as MessengerOutgoing).qs?.access_token;
      if (typeof token === 'string') this.onAccessToken(token); // an empty one masks nothing (see redact.ts)
    }
  }

  private validate(record: TrackedRecord): ValidationIssue[] {
    return validate(record.platform, record.type, record.body, { allowReferralEvent: this.options.allowReferralEvent });
  }

  private isIgnored(userId: string, record: TrackedRecord): boolean {
    const ignore = this.hooks.ignoreUsers;
    // Stryker disable next-line ConditionalExpression: without it, calling the missing hook throws, and the catch below answers false too
    if (ignore === undefined) return false;
    if (this.ignoredUsers !== undefined) return this.ignoredUsers.has(userId);
    // Stryker disable BlockStatement: an empty catch block returns undefined, which the caller reads as false too
    try {
      return (ignore as (id: string, r: TrackedRecord) => boolean)(userId, record) === true;
    } catch {
      return false;
    }
    // Stryker restore BlockStatement
  }
}

function refused(subject: string, issues: ValidationIssue[]): Built {
  return { status: 'refused', error: new TrackingValidationError(subject, issues) };
}
