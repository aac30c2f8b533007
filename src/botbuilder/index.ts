/** Bot Framework (botbuilder v4) middleware and turn helpers. Uses botbuilder's types only: nothing of botbuilder is loaded at run time. */
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
