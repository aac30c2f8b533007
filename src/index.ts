/**
 * botbuilder-conversation-analytics: the public surface. Re-exports only, and only what the README
 * and docs/ document; everything else is internal and may change in any release. The surface is
 * pinned by the API report (`api/index.api.md`, checked by `npm test`; docs/api.md lists every export).
 */

// The tracking API's contract: record types, validation, platform values and the version rule.
export type * from './protocol/types.js';
export type { ValidationIssue } from './protocol/schema.js';
export { validate, type ValidateOptions } from './protocol/schemas.js';
export {
  API_VERSIONS,
  DEFAULT_PLATFORM_NAMES,
  platformValue,
  trackUrl,
  versionFor,
  type PlatformNames,
  type TrackQuery,
} from './protocol/platforms.js';

// The plain client.
export {
  TrackingClient,
  type CloseResult,
  type FlushOptions,
  type FlushResult,
  type GenericTracker,
  type LogEventOptions,
  type MessengerTracker,
  type TrackingStats,
} from './client/tracking-client.js';
export type { TrackedRecord, TrackingClientOptions } from './client/options.js';
export type { RevenueEventInput, TrackingEventInput } from './client/currency.js';
export type { DeliveredResult, SkippedResult, TrackResult } from './client/delivery-queue.js';
export {
  TrackingConfigError,
  TrackingDeliveryError,
  TrackingError,
  TrackingValidationError,
  type DeliveryFailureReason,
} from './client/errors.js';
export { silentLogger, stderrLogger, type Logger, type LogLevel } from './client/logger.js';
export type { Transport, TransportRequest, TransportResponse } from './client/transport.js';
export { createNodeHttpTransport, type NodeHttpTransportOptions } from './client/transports/node-http.js';
export { createAxiosTransport, type AxiosLike, type AxiosTransportOptions } from './client/transports/axios.js';

// The middleware for bot SDKs, and the turn helpers.
export { BaseMiddleware, ReceiveMiddleware, SendMiddleware, TrackingMiddleware, type TrackingMiddlewareInit } from './middleware/middleware.js';
export type { TrackingMiddlewareOptions } from './middleware/options.js';
export { defaultPlatformForChannel, type PlatformForChannel } from './middleware/channels.js';
export { setIntent, setOutgoingIntent, type EventInput } from './middleware/turn-state.js';
export { trackEvent, type TrackEventOptions } from './middleware/events.js';
export {
  intentFromRecognizerResult,
  isRecognizerResult,
  type IntentFromRecognizerOptions,
  type IntentSource,
} from './middleware/intents.js';
export type {
  ActivityLike,
  AttachmentLike,
  CardActionLike,
  ChannelAccountLike,
  ConversationAccountLike,
  EntityLike,
  RecognizerResultLike,
  ResourceResponseLike,
  SendActivitiesHandlerLike,
  TurnContextLike,
  TurnStateLike,
} from './middleware/sdk-types.js';
