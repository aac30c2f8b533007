/**
 * The analytics bot teams ask for first, each a query on the store (SQLite and PostgreSQL alike),
 * one file per kind of question: users.ts (active users, retention, sessions), flows.ts (paths,
 * funnels), messages.ts (top and unhandled messages, clicked buttons), feedback.ts, revenue.ts.
 * Every view takes the filter; times are when things happened, in UTC.
 */
export { activeUsers, retention, sessionStats, RETENTION_WEEKS } from './users.js';
export { funnel, paths } from './flows.js';
export { clickedButtons, topMessages } from './messages.js';
export { feedback } from './feedback.js';
export { revenue, severalCurrencies } from './revenue.js';
