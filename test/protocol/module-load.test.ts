import { describe, expect, it } from 'vitest';

// The protocol builds its schemas when it is loaded, so a fault in a schema builder (string(),
// array(), optional()…) shows as a module that cannot be imported at all. These tests import it
// inside the test, so that such a fault fails a test here. In the other test files it fails the
// file's import instead, which a mutation run with Stryker's vitest runner counts as "no test
// ran" and so as a surviving mutant (stryker-mutator/stryker-js#6150). Keep this file free of
// static imports of src/.

describe('loading the protocol', () => {
  it('loads and validates a record of each kind, as the client and the endpoint do on start', async () => {
    const { validate } = await import('../../src/protocol/index.js');
    expect(validate('sms', 'incoming', { text: 'hi', userId: 'u', intent: { name: 'Hi', inputs: [] }, images: [], buttons: [] })).toEqual([]);
    expect(validate('messenger', 'outgoing', { json: { recipient: { id: 'u' }, message: { text: 'hi' } } })).toEqual([]);
    expect(validate('messenger', 'incoming', { object: 'page', entry: [{ id: 'p', time: 1, messaging: [{ sender: { id: 'u' }, recipient: { id: 'p' }, timestamp: 1 }] }] })).toEqual([]);
    expect(validate('directMessage', 'event', { name: 'paid', userId: 'u', type: 'revenueEvent', amount: 3 })).toEqual([]);
    expect(validate('directMessage', 'event', { name: 'r', userId: 'u', type: 'referralEvent' }, { allowReferralEvent: true })).toEqual([]);
  });

  it('loads the platform lists the client and the endpoint iterate over', async () => {
    const { PLATFORM_KINDS, RECORD_TYPES, API_VERSIONS } = await import('../../src/protocol/index.js');
    expect(PLATFORM_KINDS).toHaveLength(4);
    expect(RECORD_TYPES).toHaveLength(3);
    expect(API_VERSIONS).toHaveLength(2);
  });
});
