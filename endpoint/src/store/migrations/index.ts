/**
 * The schema's versions, oldest first. Each migration is a plain module (`up`), run once, in
 * order, at start (Kysely's Migrator keeps the list of those applied, and on PostgreSQL a lock,
 * so that several endpoints starting together migrate once). A new version of the schema is a
 * new entry at the end; an entry is never changed once released.
 *
 * One file per version, named as the version is (0001-initial.ts is `0001_initial`).
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect.js';
import { initial } from './0001-initial.js';
import { projection } from './0003-projection.js';
import { readIndexes } from './0004-read-indexes.js';
import { erasures } from './0005-erasures.js';
import { timeOrder } from './0006-time-order.js';
import { idempotency } from './0007-idempotency.js';
import { buttonLabels } from './0008-button-labels.js';
import { nameTime } from './0009-name-time.js';
import { conversationRatings } from './0010-conversation-ratings.js';
import { conversationChannels } from './0011-conversation-channels.js';

/** Every version of the schema, by name (names sort in the order they run). */
export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0003_projection': projection(dialect),
    '0004_read_indexes': readIndexes(dialect),
    '0005_erasures': erasures(dialect),
    '0006_time_order': timeOrder(dialect),
    '0007_idempotency': idempotency(),
    '0008_button_labels': buttonLabels(dialect),
    '0009_name_time': nameTime(dialect),
    '0010_conversation_ratings': conversationRatings(dialect),
    '0011_conversation_channels': conversationChannels(),
  };
}

/** The migrations as Kysely's Migrator takes them. */
export function migrationProvider(dialect: DialectName): MigrationProvider {
  return { getMigrations: async () => migrationsFor(dialect) };
}
