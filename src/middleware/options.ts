/**
 * Options of the tracking middleware, and how a middleware gets its client.
 */
import { TrackingClient, type TrackingClientOptions } from '../client/index.js';
import type { IntentFromRecognizerOptions } from './intents.js';
import type { PlatformForChannel } from './channels.js';

/** Options of `ReceiveMiddleware`, `SendMiddleware` and `TrackingMiddleware`. Every field is optional. */
export interface TrackingMiddlewareOptions {
  /**
   * The client records are sent with. Default: a new `TrackingClient(clientOptions)`, which reads
   * `TRACKING_API_KEY` and `TRACKING_BASE_URL` from the environment and throws
   * `TrackingConfigError` (from the middleware's constructor) when they are missing or invalid.
   * Close it at shutdown: `await middleware.client.close()`.
   */
  client?: TrackingClient;
  /** Options of the client built when `client` is not given. Default `{}` (everything from the environment). */
  clientOptions?: TrackingClientOptions;
  /**
   * The platform of each channel's records, called with the channel id as the channel sent it
   * (`msteams`, not the Agents SDK's `msteams:COPILOT`) and the activity. Default
   * `defaultPlatformForChannel`: `facebook` → messenger, `sms` and `twilio-sms` → sms, `twitter` →
   * directMessage, anything else → universal. Called after the turn, never inside it; if it
   * throws, that record is reported through the client and not sent.
   *
   * @example
   * platformForChannel: (channelId) => (channelId === 'acs-sms' ? 'sms' : defaultPlatformForChannel(channelId))
   */
  platformForChannel?: PlatformForChannel;
  /**
   * Record incoming `event` activities as custom events (`name` = the activity's name,
   * `extraInfo` = its value when that is an object; a nameless Messenger event is named after its
   * kind). Receipts and Messenger's page-level events (no sender) are never recorded. Default
   * `false`: event activities, like every other non-message activity, are not recorded.
   */
  trackEventActivities?: boolean;
  /**
   * Record conversation membership changes: each member a `conversationUpdate` adds or removes
   * (the bot itself excepted) becomes a custom event `memberAdded` or `memberRemoved` for that
   * member, with `extraInfo.name` when the channel gives one. Default `false`.
   */
  trackMembership?: boolean;
  /**
   * Record handoffs to a human agent (Bot Framework's handoff protocol): the `handoff.initiate`
   * event the bot sends and the `handoff.status` event the channel answers with become custom
   * events of those names, `extraInfo` = their `value` (the transcript attachment is left out).
   * Default `false`.
   */
  trackHandoffs?: boolean;
  /**
   * Record what the bot sends that is not a message: its `event` activities as custom events named
   * after them (`extraInfo` = their `value`), and its `trace` activities as custom events named
   * `trace` (`extraInfo` = `{ name, label, valueType, value }`). Default `false`.
   */
  trackBotEvents?: boolean;
  /**
   * Record the Teams feedback invoke (thumbs up or down on a reply, `message/submitAction` with
   * `actionName: 'feedback'`) as a custom event named `feedback`, for the user who gave it, with
   * `extraInfo` = `{ reaction, feedbackText?, replyToId? }` (`replyToId`: the rated reply's id).
   * Default `true`. The invoke itself is answered by your bot as before.
   */
  trackFeedback?: boolean;
  /**
   * The lowest score a recognizer's top intent needs to become the message's intent; below it the
   * message is recorded as `NotHandled` (inputs `topIntent` and `score` keep what the recognizer
   * said). Default 0. See `intentFromRecognizerResult`.
   */
  minIntentScore?: IntentFromRecognizerOptions['minScore'];
  /**
   * Recognizer intents that mean "not understood", recorded as `NotHandled` (inputs `topIntent`
   * and `score` keep the recognizer's answer). Default `['None']`. An intent you set with
   * `setIntent` is recorded as you set it.
   */
  noneIntents?: IntentFromRecognizerOptions['noneIntents'];
  /**
   * The page access token to record as `qs.access_token` in messenger outgoing records. Default:
   * none, and `qs` is left out. The client never logs it.
   */
  messengerAccessToken?: string;
  /**
   * The `uri` of messenger outgoing records. Default: the Bot Connector address the bot posted
   * the activity to (`{serviceUrl}/v3/conversations/{id}/activities/{replyToId}`), left out when
   * the activity has no `serviceUrl`.
   */
  messengerUri?: string;
  /**
   * How many conversations' offered buttons are remembered (the buttons of each one's last 5
   * messages with buttons, newest first), so that a click on one of them, also on an older card,
   * is recorded with `postback.buttonClick`. Default 1,000; the conversation used longest ago is
   * forgotten first; 0 turns this off. Only `TrackingMiddleware` (which sees both directions) can use it.
   */
  rememberButtons?: number;
  /**
   * Called when tracking code failed inside a turn (for example a client whose `defer` throws).
   * The turn goes on unharmed either way. Default: one process warning per middleware. Failures
   * after the turn (invalid records, an endpoint that is down) go to the client's `onError`/logger.
   */
  onError?: (error: unknown) => void;
}

/** True when the argument is a client rather than options (duck-typed, so two copies of this package still match). */
function isClient(value: unknown): value is TrackingClient {
  return typeof value === 'object' && value !== null && typeof (value as TrackingClient).defer === 'function' && typeof (value as TrackingClient).track === 'function' && typeof (value as TrackingClient).trackAndForget === 'function';
}

/** Normalises the constructor argument: a client, options, or nothing. Throws `TrackingConfigError` when a client has to be built and cannot be. */
export function middlewareOptions(clientOrOptions: TrackingClient | TrackingMiddlewareOptions | undefined): { client: TrackingClient; options: TrackingMiddlewareOptions } {
  if (isClient(clientOrOptions)) return { client: clientOrOptions, options: {} };
  const options = clientOrOptions ?? {};
  return { client: options.client ?? new TrackingClient(options.clientOptions ?? {}), options };
}
