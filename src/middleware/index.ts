/** The middleware for bot SDKs (the Microsoft 365 Agents SDK and botbuilder 4.x) and its turn helpers. Typed structurally (sdk-types.ts): no SDK is loaded or needed, at run time or for types. */
export { ReceiveMiddleware, SendMiddleware, TrackingMiddleware, type TrackingMiddlewareInit } from './middleware.js';
export type { TrackingMiddlewareOptions } from './options.js';
export { defaultPlatformForChannel, type PlatformForChannel } from './channels.js';
export { setIntent, setOutgoingIntent, type EventInput } from './turn-state.js';
export { trackEvent, type TrackEventOptions } from './events.js';
export {
  intentFromRecognizerResult,
  inputsFromEntities,
  isRecognizerResult,
  LUIS_TRACE_VALUE_TYPE,
  type IntentFromRecognizerOptions,
  type IntentSource,
} from './intents.js';
export { jsonSafe } from './platform-json.js';
