/**
 * Record types of the tracking interface (`shared/spec/tracking-api.md`).
 * Field names are exactly the spec's; nothing here knows about HTTP or Bot Framework.
 */

/** A named input value of an intent. Both fields are strings. */
export interface IntentInput {
  name: string;
  value: string;
}

/**
 * A label for a message, with named input values. Lets the service roll similar messages up.
 * When present, both `name` and `inputs` are required (`inputs` may be empty).
 */
export interface Intent {
  name: string;
  inputs: IntentInput[];
}

/** An image shown in a message. */
export interface Image {
  url: string;
}

/** A button offered in a message. */
export interface Button {
  id: string;
  label: string;
  value: string;
}

/** Says which button the user clicked. */
export interface Postback {
  buttonClick: { buttonId: string };
}

/**
 * The generic message shape, used by the sms, universal and direct-message platforms,
 * in both directions.
 */
export interface Message {
  /** Message text. Required; may be empty for a message that is only a card or an image. */
  text: string;
  /** The end user's identifier: the same for their incoming and outgoing messages, never the bot's own id. */
  userId: string;
  intent?: Intent;
  images?: Image[];
  buttons?: Button[];
  postback?: Postback;
  /** The original platform JSON, stored by the service for transcripts. Free-form. */
  platformJson?: Record<string, unknown>;
}

/** One messaging item of a messenger webhook entry. */
export interface MessengerMessaging {
  sender: { id: string };
  recipient: { id: string };
  /** Epoch milliseconds. */
  timestamp: number;
  /** The message; other rich media and extra fields the messenger platform sends are accepted. */
  message?: { mid?: string; seq?: number; text?: string; [key: string]: unknown };
  /** Intent of this message; the spec places it on each message of the entries array. */
  intent?: Intent;
  [key: string]: unknown;
}

/** One entry of a messenger webhook payload. */
export interface MessengerEntry {
  id: string;
  /** Epoch milliseconds. */
  time: number;
  messaging: MessengerMessaging[];
  [key: string]: unknown;
}

/** The webhook data exactly as the messenger platform delivered it to the bot. */
export interface MessengerIncoming {
  object: string;
  entry: MessengerEntry[];
  [key: string]: unknown;
}

/** What the bot posted to the messenger platform's send API. */
export interface MessengerRequestData {
  /** Query string of the bot's request; `access_token` is the page token. It is never logged by this package. */
  qs?: { access_token?: string; [key: string]: unknown };
  /** The address the bot posted its message to. */
  uri?: string;
  /** HTTP method the bot used. */
  method?: string;
  /** The message the bot sent. */
  json: {
    recipient: { id: string; [key: string]: unknown };
    message: { text?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

/** The messenger platform's reply to the bot's send request. */
export interface MessengerResponseBody {
  recipient_id?: string;
  message_id?: string;
  [key: string]: unknown;
}

/** The messenger outgoing payload: the request data, the platform's reply and an optional intent at the root. */
export interface MessengerOutgoing extends MessengerRequestData {
  responseBody?: MessengerResponseBody;
  intent?: Intent;
}

/** The event types the spec lists. `referralEvent` is accepted only with `allowReferralEvent`. */
export type EventType = 'customEvent' | 'revenueEvent' | 'shareEvent' | 'pageLaunchEvent' | 'referralEvent';

/** What every event has: its name, its user and (optionally) its conversation. */
export interface EventBase {
  /** Name of the event. */
  name: string;
  /** The end user's identifier. */
  userId: string;
  /** Conversation the event belongs to. */
  conversationId?: string;
}

/** Any application-defined occurrence. */
export interface CustomEvent extends EventBase {
  type: 'customEvent';
  extraInfo?: Record<string, unknown>;
}

/** A purchase or other revenue. */
export interface RevenueEvent extends EventBase {
  type: 'revenueEvent';
  /** A finite decimal number. */
  amount: number;
  referenceNumber?: string;
  /** Free-form, for example product details. */
  metadata?: Record<string, unknown>;
}

/** A user shared something, such as a link. Sent on the messenger platform unless told otherwise. */
export interface ShareEvent extends EventBase {
  type: 'shareEvent';
  sharedMessage?: Record<string, unknown>;
}

/** A user opened an external page, such as a link click. */
export interface PageLaunchEvent extends EventBase {
  type: 'pageLaunchEvent';
  extraInfo?: Record<string, unknown>;
}

/**
 * A referral. The spec describes it but does not say the endpoint accepts it as a `type`,
 * so it is sent only when the client is created with `allowReferralEvent: true`.
 */
export interface ReferralEvent extends EventBase {
  type: 'referralEvent';
  ref?: string;
  source?: string;
  adid?: string;
  refereruri?: string;
}

/** An event record of any type. */
export type TrackingEvent = CustomEvent | RevenueEvent | ShareEvent | PageLaunchEvent | ReferralEvent;

/** The kind of record, as the `type` query parameter says it. */
export type RecordType = 'incoming' | 'outgoing' | 'event';

/** Which of the spec's four platforms a record is for. The value sent on the wire is resolved from it. */
export type PlatformKind = 'sms' | 'universal' | 'directMessage' | 'messenger';

/** The interface versions the spec shows. */
export type ApiVersion = '11.1.0-rest' | '10.1.1-rest';
