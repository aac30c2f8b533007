/** The filter's helpers (read/filter.ts), on their own: which bots a view reads, and the platform and null forms. */
import { describe, expect, it } from 'vitest';
import { NO_BOT, botsOf, orNull, shownPlatform, storedPlatform } from '../../src/read/filter.js';

describe('botsOf', () => {
  it('reads every bot with neither bot nor scope, the bot asked for, or the scope narrowed to it; a filter that reaches no bot asks for NO_BOT', () => {
    expect(botsOf({})).toBeUndefined();
    expect(botsOf({ bot: 'aa' })).toEqual(['aa']);
    expect(botsOf({ bots: ['aa', 'bb'] })).toEqual(['aa', 'bb']);
    expect(botsOf({ bots: ['aa', 'bb'], bot: 'bb' })).toEqual(['bb']);
    expect(botsOf({ bots: ['aa', 'bb'], bot: 'cc' })).toEqual([NO_BOT]);
    expect(botsOf({ bots: [] })).toEqual([NO_BOT]);
    expect(NO_BOT).toBe('-');
  });
});

describe('platforms and nulls', () => {
  it('stores the scripted form\'s "(none)" as no platform, shows no platform as "(none)", and gives "" as null', () => {
    expect([storedPlatform('(none)'), storedPlatform('twitter'), storedPlatform('')]).toEqual(['', 'twitter', '']);
    expect([shownPlatform(''), shownPlatform('twitter'), shownPlatform('(none)')]).toEqual(['(none)', 'twitter', '(none)']);
    expect([orNull(''), orNull('webchat')]).toEqual([null, 'webchat']);
  });
});
