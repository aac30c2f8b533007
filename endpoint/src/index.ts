/**
 * The tracking endpoint (`botbuilder-conversation-analytics-endpoint`): `POST /track` as the
 * tracking spec describes it, records kept in SQLite (by default) or PostgreSQL, a JSON read
 * side with live updates, and a page at `/` that shows transcripts and charts.
 */
export { startTrackingEndpoint, type TrackingEndpoint } from './endpoint.js';
export { TrackingEndpointError } from './errors.js';
export { DEFAULT_DATABASE_FILE, DEFAULT_PORT, LEGACY_DATA_FILE, type TrackingEndpointOptions } from './options.js';
export type { StoredRecords } from './store/store.js';
export type { ImportReport } from './store/ndjson-import.js';
export type { MaskKind } from './store/mask.js';
export { transcriptEntries } from './store/entries.js';
export type * from './types.js';
// The tracking API's types that the endpoint's own types refer to.
export type { ApiVersion, PlatformKind, PlatformNames, RecordType, ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
