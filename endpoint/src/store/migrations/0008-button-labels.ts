/** Version 8: the label each button was offered with (see `buttonLabels` below). */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { typesOf } from './column-types.js';

/**
 * `button_labels`: per bot and button id, the label the bot last offered that button with (by when
 * the offer happened), and when. The "Buttons clicked" view shows a click by this label (what the
 * user saw on the button), not by what the user's message said with it. Offers stored before this
 * version are not read again: a button's label is known from its next offer on.
 */
export function buttonLabels(dialect: DialectName): Migration {
  const t = typesOf(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.createTable('button_labels')
        .addColumn('bot', 'text', (c) => c.notNull())
        .addColumn('button', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('offered_at', t.millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('button_labels_pk', ['bot', 'button'])
        .execute();
    },
  };
}
