/**
 * The errors a user catches: each one named for what went wrong (and `instanceof` its family),
 * its message listing every problem, and a delivery error's reason, status, attempts and cause.
 */
import { describe, expect, it } from 'vitest';
import { TrackingConfigError, TrackingDeliveryError, TrackingError, TrackingValidationError } from '../../src/index.js';

describe('the error classes', () => {
  it('each has its own name, and belongs to its family', () => {
    const base = new TrackingError('base');
    const validation = new TrackingValidationError('The sms incoming record', [{ path: 'userId', expected: 'a string', received: 'missing' }]);
    const config = new TrackingConfigError('No API key', [{ path: 'apiKey', expected: 'a key', received: 'missing' }]);
    const delivery = new TrackingDeliveryError('rejected', 'refused');
    expect([base, validation, config, delivery].map((e) => e.name)).toEqual(['TrackingError', 'TrackingValidationError', 'TrackingConfigError', 'TrackingDeliveryError']);
    expect(String(config)).toBe('TrackingConfigError: No API key');
    for (const e of [validation, config, delivery]) expect(e).toBeInstanceOf(TrackingError);
    expect(config).toBeInstanceOf(TrackingValidationError);
    expect(base).toBeInstanceOf(Error);
  });

  it('a validation error lists every issue: a missing field as required, another with what was expected and what came', () => {
    const issues = [
      { path: 'userId', expected: 'a non-empty string', received: 'missing' },
      { path: 'text', expected: 'a string', received: 'number' },
    ];
    const error = new TrackingValidationError('The sms incoming record', issues);
    expect(error.message).toBe('The sms incoming record does not conform to the tracking spec and was not sent: userId is required but missing; text: expected a string, got number');
    expect(error.issues).toBe(issues);
  });

  it('a config error keeps its own message and the option as the issue path', () => {
    const error = new TrackingConfigError('Set TRACKING_API_KEY.', [{ path: 'apiKey', expected: 'a key', received: 'missing' }]);
    expect(error.message).toBe('Set TRACKING_API_KEY.');
    expect(error.issues).toEqual([{ path: 'apiKey', expected: 'a key', received: 'missing' }]);
  });

  it('a delivery error carries its reason, last status, attempts (0 when none was made) and cause, if any', () => {
    const cause = new Error('socket hang up');
    const error = new TrackingDeliveryError('retries-exhausted', 'gave up', { status: 503, attempts: 5, cause });
    expect(error).toMatchObject({ reason: 'retries-exhausted', status: 503, attempts: 5, message: 'gave up' });
    expect(error.cause).toBe(cause);
    const bare = new TrackingDeliveryError('queue-full', 'full');
    expect(bare).toMatchObject({ reason: 'queue-full', status: undefined, attempts: 0 });
    expect('cause' in bare).toBe(false);
  });
});
