/**
 * The local tracking endpoint (`botbuilder-conversation-analytics/endpoint`): `POST /track` as
 * the tracking spec describes it, a durable NDJSON store, a JSON read side with live updates,
 * and a page at `/` that shows transcripts and charts.
 */
export { startTrackingEndpoint, type TrackingEndpoint } from './endpoint.js';
export { TrackingEndpointError } from './errors.js';
export { DEFAULT_DATA_FILE, DEFAULT_PORT, type TrackingEndpointOptions } from './options.js';
export type { RecordStore } from './store/store.js';
export type { ReadModel } from './read/read-model.js';
export { transcriptEntries } from './read/normalise.js';
export type * from './types.js';
