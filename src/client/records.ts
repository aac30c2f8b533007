/**
 * Who a record belongs to. The end user decides a record's delivery lane (order is kept per user)
 * and whether `ignoreUsers` drops it.
 */
import type { TrackedRecord } from './options.js';

/** The end user a record belongs to: it decides the delivery lane (order per user) and `ignoreUsers`. */
export function userIdOf(record: TrackedRecord): string | undefined {
  const body = record.body as Record<string, any>;
  if (record.type !== 'event' && record.platform === 'messenger') {
    return record.type === 'incoming' ? body.entry?.[0]?.messaging?.[0]?.sender?.id : body.json?.recipient?.id;
  }
  return body.userId;
}

