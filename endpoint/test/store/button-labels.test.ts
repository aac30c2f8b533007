/**
 * "Buttons clicked" names each button by the label the bot offered it with (issue 30, point 8:
 * it showed what the user's message said with the click, `order margherita`, not the button,
 * `margherita (9.50 EUR)`), on both databases, whatever order the records arrive in.
 */
import { describe, expect, it } from 'vitest';
import { BOT, OTHER_BOT, appendEach, appendTogether, databases, msg, said, withEndpoint, withStore } from './databases.js';
import type { NewRecord } from '../../src/store/store.js';

const DBS = databases();

const MENU = [
  { id: 'order margherita', label: 'margherita (9.50 EUR)', value: 'order margherita' },
  { id: 'order pepperoni', label: 'pepperoni (11.00 EUR)', value: 'order pepperoni' },
];

/** The bot's reply to `user` at `at` offering `buttons`. */
const offer = (user: string, at: string, buttons: unknown[], bot = BOT): NewRecord => ({ ...said(user, 'Our pizzas', at, { buttons }, `c-${user}`, 'outgoing'), bot });
/** `user`'s click on `button` at `at`, their message saying `text`. */
const click = (user: string, at: string, button: string, text = button, bot = BOT): NewRecord => msg({ user, at, text, button, bot });

describe.each(DBS)('clicked buttons on $name', ({ fresh }) => {
  it('are labelled as the bot offered them, not by what the message said', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [offer('ada', '2026-03-02T10:00:00Z', MENU), click('ada', '2026-03-02T10:00:05Z', 'order margherita')]);
      await appendEach(store, [offer('bob', '2026-03-02T11:00:00Z', MENU), click('bob', '2026-03-02T11:00:05Z', 'order pepperoni'), click('bob', '2026-03-02T11:00:09Z', 'order margherita')]);
      expect(await get('/api/analytics/buttons')).toEqual({
        total: 3,
        buttons: [
          { button: 'order margherita', label: 'margherita (9.50 EUR)', clicks: 2 },
          { button: 'order pepperoni', label: 'pepperoni (11.00 EUR)', clicks: 1 },
        ],
      });
    });
  });

  it('keep what the message said when no offer of the button is known, and ignore buttons offered without an id or a label', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        offer('ada', '2026-03-02T10:00:00Z', [{ id: 'yes', label: '', value: 'yes' }, { id: '', label: 'No', value: 'no' }]),
        click('ada', '2026-03-02T10:00:05Z', 'yes', 'Yes!'),
        click('ada', '2026-03-02T10:00:09Z', 'later', 'Later'),
      ]);
      expect((await get('/api/analytics/buttons')).buttons).toEqual([
        { button: 'later', label: 'Later', clicks: 1 },
        { button: 'yes', label: 'Yes!', clicks: 1 },
      ]);
      expect(await store.db.selectFrom('button_labels').selectAll().execute()).toEqual([]);
    });
  });

  it('take the label of the latest offer by when it happened, whatever order the records arrive in', async () => {
    for (const append of [appendEach, appendTogether]) {
      await withEndpoint(await fresh(), async (store, get) => {
        // The click arrives first, then the offer it answered, then an older offer (late) with another label.
        await append(store, [
          click('ada', '2026-03-02T10:00:05Z', 'order margherita'),
          offer('ada', '2026-03-02T10:00:00Z', MENU),
          offer('bob', '2026-03-01T09:00:00Z', [{ id: 'order margherita', label: 'Margherita (old menu)', value: 'order margherita' }]),
        ]);
        expect((await get('/api/analytics/buttons')).buttons).toEqual([{ button: 'order margherita', label: 'margherita (9.50 EUR)', clicks: 1 }]);
        // A later offer renames it.
        await append(store, [offer('cat', '2026-03-03T09:00:00Z', [{ id: 'order margherita', label: 'Margherita 10 EUR', value: 'order margherita' }])]);
        expect((await get('/api/analytics/buttons')).buttons).toEqual([{ button: 'order margherita', label: 'Margherita 10 EUR', clicks: 1 }]);
        const rows = await store.db.selectFrom('button_labels').selectAll().orderBy('button').execute();
        expect(rows.map((r) => [r.bot, r.button, r.label, Number(r.offered_at)])).toEqual([
          [BOT, 'order margherita', 'Margherita 10 EUR', Date.parse('2026-03-03T09:00:00Z')],
          [BOT, 'order pepperoni', 'pepperoni (11.00 EUR)', Date.parse('2026-03-02T10:00:00Z')],
        ]);
      });
    }
  });

  it('take, of two offers at one moment, the one stored later, in one batch or two', async () => {
    const at = '2026-03-02T10:00:00Z';
    const first = offer('ada', at, [{ id: 'go', label: 'Go', value: 'go' }]);
    const second = offer('bob', at, [{ id: 'go', label: 'Go now', value: 'go' }]);
    for (const append of [appendEach, appendTogether]) {
      await withStore(await fresh(), async (store) => {
        await append(store, [first, second, click('ada', '2026-03-02T10:01:00Z', 'go')]);
        const stored = await store.db.selectFrom('button_labels').select(['label']).execute();
        expect(stored).toEqual([{ label: 'Go now' }]);
      });
    }
  });

  it('are labelled per bot, and keep a label to 200 characters', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      const long = 'x'.repeat(300);
      await appendEach(store, [
        offer('ada', '2026-03-02T10:00:00Z', [{ id: 'go', label: long, value: 'go' }]),
        offer('bob', '2026-03-02T10:00:00Z', [{ id: 'go', label: 'Go (other bot)', value: 'go' }], OTHER_BOT),
        click('ada', '2026-03-02T10:00:05Z', 'go', 'go'),
      ]);
      expect((await get('/api/analytics/buttons')).buttons).toEqual([{ button: 'go', label: long.slice(0, 200), clicks: 1 }]);
      const rows = await store.db.selectFrom('button_labels').select(['bot', 'label']).orderBy('label').execute();
      expect(rows).toEqual([{ bot: OTHER_BOT, label: 'Go (other bot)' }, { bot: BOT, label: long.slice(0, 200) }]);
    });
  });

  it('are counted within the filter, each button once, with the greatest of its labels when bots or days differ', async () => {
    await withEndpoint(await fresh(), async (store, get) => {
      await appendEach(store, [
        offer('ada', '2026-03-02T10:00:00Z', [{ id: 'go', label: 'Go A', value: 'go' }]),
        click('ada', '2026-03-02T10:00:05Z', 'go'),
        offer('bob', '2026-03-03T10:00:00Z', [{ id: 'go', label: 'Go B', value: 'go' }], OTHER_BOT),
        click('bob', '2026-03-03T10:00:05Z', 'go', 'go', OTHER_BOT),
        // Never offered: what the messages said, the greatest of them.
        click('cat', '2026-03-02T11:00:00Z', 'later', 'Later'),
        click('cat', '2026-03-03T11:00:00Z', 'later', 'later please'),
      ]);
      expect(await get('/api/analytics/buttons')).toEqual({ total: 4, buttons: [{ button: 'go', label: 'Go B', clicks: 2 }, { button: 'later', label: 'later please', clicks: 2 }] });
      expect(await get(`/api/analytics/buttons?bot=${BOT}`)).toEqual({ total: 3, buttons: [{ button: 'later', label: 'later please', clicks: 2 }, { button: 'go', label: 'Go A', clicks: 1 }] });
      expect(await get('/api/analytics/buttons?from=2026-03-03')).toEqual({ total: 2, buttons: [{ button: 'go', label: 'Go B', clicks: 1 }, { button: 'later', label: 'later please', clicks: 1 }] });
      // Each bot's clicks take that bot's label: before Mar 3 only the first bot's click was.
      expect(await get('/api/analytics/buttons?to=2026-03-03')).toEqual({ total: 2, buttons: [{ button: 'go', label: 'Go A', clicks: 1 }, { button: 'later', label: 'Later', clicks: 1 }] });
    });
  });

  it('lose an offer\'s label with the records retention deletes, and keep later ones', async () => {
    await withStore(await fresh(), async (store) => {
      await appendEach(store, [offer('ada', '2026-03-01T10:00:00Z', [{ id: 'old', label: 'Old', value: 'old' }]), offer('ada', '2026-03-05T10:00:00Z', MENU)]);
      await store.db.selectFrom('button_labels').selectAll().execute(); // read once the views hold both offers
      await store.deleteBefore(Date.parse('2026-03-03T00:00:00Z'));
      const rows = await store.db.selectFrom('button_labels').select('button').orderBy('button').execute();
      expect(rows.map((r) => r.button)).toEqual(['order margherita', 'order pepperoni']);
    });
  });
});
