/**
 * The label each button a batch's replies offer was offered with (store/rows.ts, `projectEntries`):
 * what the store keeps for "Buttons clicked" to name a click by (button-labels.test.ts has it on
 * both databases).
 */
import { describe, expect, it } from 'vitest';
import { sqliteDialect, type Dialect } from '../../src/store/dialect.js';
import { entriesOf, projectEntries } from '../../src/store/rows.js';
import type { StoredRecord } from '../../src/types.js';

const BOT = 'abcdefabcdef';
const OTHER_BOT = '123456123456';

describe('the labels a batch\'s replies offer', () => {
  let seq = 0;
  const stored = (type: 'incoming' | 'outgoing', at: string, buttons: unknown, bot = BOT): StoredRecord => ({
    seq: ++seq, receivedAt: '2026-03-10T00:00:00.000Z', occurredAt: at, platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type, bot,
    body: { text: 'x', userId: 'ada', buttons, platformJson: { timestamp: at, conversation: { id: 'c1' } } },
  });
  /** A dialect that marks every value it is given, to see which go through `text`. */
  const marking: Dialect = { ...sqliteDialect, text: (value) => `<${value}>` };

  it('are the labels of the buttons the bot offered, by bot and button id, with the entry rows as entriesOf gives them', () => {
    const batch = [
      stored('outgoing', '2026-03-02T10:00:00Z', [{ id: 'b', label: 'Bee', value: 'b' }, { id: 'a', label: 'Ay', value: 'a' }, { id: '', label: 'No id' }, { id: 'c', label: '' }]),
      stored('incoming', '2026-03-02T10:00:01Z', [{ id: 'z', label: 'Said by the user', value: 'z' }]),
      stored('outgoing', '2026-03-02T10:00:02Z', [{ id: 'a', label: 'Ay', value: 'a' }], OTHER_BOT),
    ];
    const { entries, buttonLabels } = projectEntries(batch, marking);
    expect(entries).toEqual(entriesOf(batch, marking));
    expect(entries.map((rows) => rows.length)).toEqual([1, 1, 1]);
    const at = (iso: string) => Date.parse(iso);
    expect(buttonLabels).toEqual([
      { bot: OTHER_BOT, button: '<a>', label: '<Ay>', offered_at: at('2026-03-02T10:00:02Z') },
      { bot: BOT, button: '<a>', label: '<Ay>', offered_at: at('2026-03-02T10:00:00Z') },
      { bot: BOT, button: '<b>', label: '<Bee>', offered_at: at('2026-03-02T10:00:00Z') },
    ]);
  });

  it('take, of two offers of one button, the later by time, else the later in the batch; and a label to 200 characters', () => {
    const long = 'y'.repeat(250);
    const offers = (...list: [string, string][]) => list.map(([at, label]) => stored('outgoing', at, [{ id: 'go', label, value: 'go' }]));
    const labelOf = (batch: StoredRecord[]) => projectEntries(batch, sqliteDialect).buttonLabels.map((row) => [row.label, row.offered_at]);
    expect(labelOf(offers(['2026-03-02T10:00:05Z', 'Later'], ['2026-03-02T10:00:00Z', 'Earlier, stored after']))).toEqual([['Later', Date.parse('2026-03-02T10:00:05Z')]]);
    expect(labelOf(offers(['2026-03-02T10:00:00Z', 'Earlier'], ['2026-03-02T10:00:05Z', 'Later']))).toEqual([['Later', Date.parse('2026-03-02T10:00:05Z')]]);
    expect(labelOf(offers(['2026-03-02T10:00:00Z', 'First'], ['2026-03-02T10:00:00Z', long]))).toEqual([[long.slice(0, 200), Date.parse('2026-03-02T10:00:00Z')]]);
    expect(labelOf([stored('outgoing', '2026-03-02T10:00:00Z', 'not a list')])).toEqual([]);
  });
});
