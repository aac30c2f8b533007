/**
 * What was not delivered, counted by kind (tally.ts): the kind a record is named by, the line
 * that says a batch, and when that line is written.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.js';
import { SafeLogger } from '../../src/client/logger.js';
import { describeCounts, kindOf, LossTally, TALLY_INTERVAL_MS } from '../../src/client/tally.js';

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function tally(lines: Line[], now: () => number): LossTally {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return new LossTally(new SafeLogger(logger, [], false), now);
}

describe('the kind a record is named by', () => {
  it('is its type, or for an event its event type', () => {
    expect(kindOf('incoming', '{"text":"a","type":"revenueEvent"}')).toBe('incoming');
    expect(kindOf('outgoing', undefined)).toBe('outgoing');
    expect(kindOf('event', JSON.stringify({ extraInfo: { type: 'nested' }, type: 'revenueEvent', name: 'buy' }))).toBe('revenueEvent');
    expect(kindOf('event', '{"type":"customEvent"}')).toBe('customEvent');
  });

  it('is "event" for an event whose type cannot be read, or is not a plain name', () => {
    expect(kindOf('event', undefined)).toBe('event');
    expect(kindOf('event', 'not json')).toBe('event');
    expect(kindOf('event', 'null')).toBe('event');
    expect(kindOf('event', '{"type":7}')).toBe('event');
    expect(kindOf('event', '{"type":"a b"}')).toBe('event');
    expect(kindOf('event', JSON.stringify({ type: 'x'.repeat(41) }))).toBe('event');
    expect(kindOf('event', JSON.stringify({ type: 'x'.repeat(40) }))).toBe('x'.repeat(40));
    expect(kindOf('event', '{"type":""}')).toBe('event');
  });
});

describe('the line', () => {
  it('counts a batch by kind, most first, then by name', () => {
    expect(describeCounts('given up', new Map([['revenueEvent', 1], ['incoming', 2]]))).toBe('3 records given up: 2 incoming, 1 revenueEvent');
    expect(describeCounts('given up', new Map([['outgoing', 1], ['incoming', 1]]))).toBe('2 records given up: 1 incoming, 1 outgoing');
    expect(describeCounts('dropped', new Map([['incoming', 1]]))).toBe('1 record dropped: 1 incoming');
  });

  it('says every fate of the batch, given up first, with the counts as fields, and starts afresh after', () => {
    const lines: Line[] = [];
    const t = tally(lines, () => 0);
    t.count('saved to persistDir', 'incoming');
    t.count('dropped', 'outgoing');
    t.count('given up', 'incoming');
    t.count('given up', 'revenueEvent');
    t.count('given up', 'incoming');
    t.flush();
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'tracking: 3 records given up: 2 incoming, 1 revenueEvent; 1 record dropped: 1 outgoing; 1 record saved to persistDir: 1 incoming',
        fields: { 'given up': { incoming: 2, revenueEvent: 1 }, dropped: { outgoing: 1 }, 'saved to persistDir': { incoming: 1 } },
      },
    ]);
    t.flush();
    expect(lines).toHaveLength(1);
    t.count('dropped', 'incoming');
    t.flush();
    expect(lines.at(-1)?.message).toBe('tracking: 1 record dropped: 1 incoming');
  });
});

describe('when the line is written', () => {
  it("when the client goes quiet, once the batch's first record is TALLY_INTERVAL_MS old; at once on flush", () => {
    expect(TALLY_INTERVAL_MS).toBe(10_000);
    let clock = 1_000;
    const lines: Line[] = [];
    const t = tally(lines, () => clock);
    t.quiet();
    expect(lines).toEqual([]);
    t.count('given up', 'incoming');
    clock += 5_000;
    t.count('given up', 'outgoing');
    clock += TALLY_INTERVAL_MS - 5_001;
    t.quiet();
    expect(lines).toEqual([]);
    clock += 1;
    t.quiet();
    expect(lines.map((l) => l.message)).toEqual(['tracking: 2 records given up: 1 incoming, 1 outgoing']);
    // The next batch counts from its own first record.
    clock += 60_000;
    t.count('given up', 'incoming');
    clock += TALLY_INTERVAL_MS - 1;
    t.quiet();
    expect(lines).toHaveLength(1);
    t.flush();
    expect(lines.map((l) => l.message).at(-1)).toBe('tracking: 1 record given up: 1 incoming');
  });
});
