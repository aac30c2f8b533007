/**
 * The local tracking endpoint (`botbuilder-conversation-analytics/endpoint`): `POST /track` as
 * the tracking spec describes it, a durable NDJSON store, a JSON read side with live updates,
 * and a page at `/` that shows transcripts and charts.
 */
export { startTrackingEndpoint, type TrackingEndpoint } from './endpoint.js';
export { TrackingEndpointError } from './errors.js';
export { DEFAULT_DATA_FILE, DEFAULT_PORT, type TrackingEndpointOptions } from './options.js';
export type { RecordStore } from './store.js';
export type { ReadModel } from './read-model.js';
export type { ErrorBody } from './respond.js';
export type { TrackAccepted } from './track.js';
export type { ConversationsResponse, TranscriptResponse, UsersResponse } from './read-api.js';
export type { IntentsResponse, RecordResponse, TimeseriesResponse } from './analytics-api.js';
export type { RecordsEvent } from './live.js';
export { transcriptEntries } from './normalise.js';
export type * from './types.js';
