/** Where records are kept, as the start-up lines and the log say it. */

/**
 * `in memory only (lost on stop)`, `in SQLite /var/lib/tracking/tracking.db` or `in PostgreSQL
 * postgres://tracking@db/tracking` (`location` is already without a password).
 */
export function whereKept(kind: 'sqlite' | 'postgres', location: string): string {
  if (location === ':memory:') return 'in memory only (lost on stop)';
  return `in ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ${location}`;
}
