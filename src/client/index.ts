/**
 * The client layer's barrel, for the layers above it (middleware/, cli/). The package's public
 * surface is src/index.ts, which picks from here deliberately.
 */
export { TrackingClient, userIdOf, type TrackingStats, type CloseResult, type FlushOptions, type FlushResult, type GenericTracker, type MessengerTracker, type LogEventOptions } from './tracking-client.js';
export type { TrackingClientOptions, TrackedRecord } from './options.js';
export type { TrackResult, DeliveredResult, SkippedResult } from './delivery-queue.js';
export type { RevenueEventInput, TrackingEventInput } from './currency.js';
export { TrackingError, TrackingConfigError, TrackingValidationError, TrackingDeliveryError, type DeliveryFailureReason } from './errors.js';
export { stderrLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
export { eventWithTime, messageWithTime } from './record-time.js';
export { createNodeHttpTransport, type NodeHttpTransportOptions } from './transports/node-http.js';
export { createAxiosTransport, type AxiosTransportOptions, type AxiosLike } from './transports/axios.js';
