/**
 * Events: `trackEvent` from a bot's turn, and incoming `event` activities as custom events.
 */
import type { ActivityLike, TurnContextLike } from './sdk-types.js';
import type { CustomEvent, PlatformKind, TrackingEvent } from '../protocol/index.js';
import { jsonSafeObject } from './platform-json.js';
import { TURN_STATE_KEY, type EventInput, type TurnTracking } from './turn-state.js';
import { idOf, isObject } from './values.js';

/** Event activities the adapters make themselves (proactive turns); never tracked as user events. */
const ADAPTER_EVENTS = new Set(['ContinueConversation', 'CreateConversation']);

/** The id of an activity's conversation as a string (a numeric id as its digits), or `undefined`. */
export function conversationIdOf(activity: ActivityLike): string | undefined {
  return idOf(activity.conversation?.id);
}

/** The end user of a turn: the activity's `from`, unless it is the bot (role `bot`), then its `recipient`. */
export function endUserId(activity: ActivityLike): string | undefined {
  return idOf(activity.from?.role === 'bot' ? activity.recipient?.id : activity.from?.id);
}

/**
 * Kinds of nameless channel events known by name (published adapters put the webhook's messaging
 * event in `channelData`): found whatever the channel, and before any other field of a Messenger event.
 */
const CHANNEL_EVENT_KINDS = [
  'referral', 'optin', 'postback', 'pass_thread_control', 'take_thread_control', 'request_thread_control', 'app_roles',
  'payment', 'checkout_update', 'pre_checkout', 'account_linking', 'policy_enforcement', 'reaction', 'game_play',
  'message_edit',
] as const;

/** The fields every Messenger messaging event has besides its kind: who, to whom, when, and the message a postback answers. */
const MESSAGING_ENVELOPE = new Set(['sender', 'recipient', 'timestamp', 'prior_message']);

/**
 * True when an activity's `channelData` is a Messenger messaging event, as the Facebook channel and
 * botbuilder-adapter-facebook deliver it: `recipient.id` and a numeric `timestamp` (and `sender.id`,
 * unless the event is about the page).
 */
function isMessagingEvent(data: Record<string, any>): boolean {
  return isObject(data.recipient) && idOf(data.recipient.id) !== undefined && typeof data.timestamp === 'number';
}

/**
 * True for delivery, read and echo receipts (Messenger's `delivery`, `read`, and `message.is_echo`):
 * the channel reporting on messages, not a user doing something. Skipped on purpose.
 */
export function isReceipt(activity: ActivityLike): boolean {
  const data: unknown = activity.channelData;
  return isObject(data) && (isObject(data.delivery) || isObject(data.read) || (isObject(data.message) && data.message.is_echo === true));
}

/** A referral's fields under the spec's referral names (`ref`, `source`, `adid`, `refereruri`), plus its `type`. */
function referralInfo(referral: Record<string, any>): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  for (const [from, to] of [['ref', 'ref'], ['source', 'source'], ['type', 'type'], ['ad_id', 'adid'], ['adid', 'adid'], ['referer_uri', 'refereruri'], ['refereruri', 'refereruri']] as const) {
    if (typeof referral[from] === 'string' && info[to] === undefined) info[to] = referral[from];
  }
  return info;
}

/** A field present with a value (neither `undefined` nor `null`). */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The custom event of a nameless channel event, or `undefined`. Its kind is the first field of
 * CHANNEL_EVENT_KINDS it has; for a Messenger messaging event, else its first field besides the
 * envelope (Meta adds kinds every year: `branded_camera`, …). Not recorded, on purpose: receipts,
 * and events without a user: a Messenger event without `sender` (`app_roles`,
 * `policy_enforcement`: Meta sends them per page) or any other without `from.id`.
 */
function channelEventOf(activity: ActivityLike, base: { userId: string; conversationId?: string }): CustomEvent | undefined {
  const data: unknown = activity.channelData;
  if (!isObject(data) || isReceipt(activity)) return undefined;
  const messenger = isMessagingEvent(data);
  let userId = base.userId;
  if (messenger) {
    // Without a sender, a Messenger event is about the page (app_roles, policy_enforcement), not a user.
    const sender = isObject(data.sender) ? idOf(data.sender.id) : undefined;
    if (sender === undefined) return undefined;
    if (userId === '') userId = sender;
  }
  if (userId === '') return undefined;
  const kind = CHANNEL_EVENT_KINDS.find((k) => isSet(data[k])) ?? (messenger ? Object.keys(data).find((k) => !MESSAGING_ENVELOPE.has(k) && isSet(data[k])) : undefined);
  if (kind === undefined) return undefined;
  const payload = jsonSafeObject(isObject(data[kind]) ? data[kind] : { value: data[kind] }) ?? {};
  const extraInfo = kind === 'referral' ? { ...referralInfo(payload), referral: payload } : payload;
  return { type: 'customEvent', name: kind, ...base, userId, extraInfo };
}

/**
 * The custom event of an incoming `event` activity: `name` = `activity.name`, `userId` = `from.id`,
 * `conversationId` (numeric ids as their digits), and `extraInfo` = `value` when it is an object (JSON-safe, without secrets).
 * A nameless event from a channel (a Messenger referral, opt-in, postback, thread-control handover,
 * payment, checkout, reaction, message edit, or any other kind of Messenger event, found in
 * `channelData`) is named after its kind, with that part of the payload as `extraInfo` (a
 * referral's under the spec's referral field names too), for `from.id` (else Messenger's `sender.id`).
 * `undefined` for the adapters' own `ContinueConversation` and `CreateConversation` events, for
 * delivery, read and echo receipts, for a nameless event without a user (Messenger's page-level
 * events: no `sender`) and for a nameless event of no kind.
 */
export function customEventOf(activity: ActivityLike): CustomEvent | undefined {
  const name = activity.name;
  const base: { userId: string; conversationId?: string } = { userId: idOf(activity.from?.id) ?? '' };
  const conversationId = conversationIdOf(activity);
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
  if (conversationId !== undefined) base.conversationId = conversationId;
  if (typeof name !== 'string' || name === '') return channelEventOf(activity, base);
  if (ADAPTER_EVENTS.has(name)) return undefined;
  const event: CustomEvent = { type: 'customEvent', name, ...base };
  const extraInfo = isObject(activity.value) ? jsonSafeObject(activity.value) : undefined;
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
  if (extraInfo !== undefined) event.extraInfo = extraInfo;
  return event;
}

/** An event with the turn's end user and conversation filled in where the bot left them out. */
export function fillEvent(event: EventInput, activity: ActivityLike): TrackingEvent {
  const filled = { ...event } as TrackingEvent;
  if (filled.userId === undefined) {
    const userId = endUserId(activity);
    // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
    if (userId !== undefined) filled.userId = userId;
  }
  if (filled.conversationId === undefined) {
    const conversationId = conversationIdOf(activity);
    // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
    if (conversationId !== undefined) filled.conversationId = conversationId;
  }
  return filled;
}

/** Options of `trackEvent`. */
export interface TrackEventOptions {
  /** The platform to send the event on. Default: the platform of the turn's channel (the middleware's channel mapping), like the turn's messages. */
  platform?: PlatformKind;
}

/**
 * Logs an event for the turn's conversation: a revenue, share, page-launch or custom event.
 * `userId` (the end user) and `conversationId` are filled from the turn when left out. It is
 * sent through the client of the turn's tracking middleware, on the platform of the turn's
 * channel unless `options.platform` says otherwise (so events sit with the conversation's
 * messages; the version rule gives every event `11.1.0-rest`). An event logged before the turn's
 * incoming message is queued waits for it, so it is always recorded after that message. It is
 * dated with the time of this call (`extraInfo.timestamp` of a custom or page-launch event,
 * `metadata.timestamp` of a revenue event), unless it has a time there already.
 * Building and checking the record happen after the call returns; a record the spec refuses is
 * reported through the client's `onError`/logger.
 *
 * @returns `true` when the event was handed to tracking; `false` when no tracking middleware ran
 * in this turn or `context` is not a live turn context. Never throws, never waits.
 *
 * @example
 * trackEvent(context, { type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1' });
 */
export function trackEvent(context: TurnContextLike, event: EventInput, options: TrackEventOptions = {}): boolean {
  try {
    const state = context.turnState.get(TURN_STATE_KEY) as TurnTracking | undefined;
    if (state?.logEvent === undefined || !isObject(event)) return false;
    const { logEvent } = state;
    const activity = context.activity;
    const copy = { ...event } as EventInput;
    const trackedAt = Date.now();
    const log = (): void => logEvent(activity, copy, options.platform, trackedAt);
    // An event follows the message that led to it: hold it until the incoming record is queued.
    if (state.incomingPending && !state.incomingQueued) (state.heldEvents ??= []).push(log);
    else log();
    return true;
  } catch {
    return false;
  }
}

/** The event names of Bot Framework's handoff protocol. */
export const HANDOFF_EVENTS = new Set(['handoff.initiate', 'handoff.status']);

/**
 * True for an activity named like a handoff protocol event (`handoff.initiate` from the bot,
 * `handoff.status` from the channel). Its callers check that it is an `event` activity.
 */
export function isHandoff(activity: ActivityLike): boolean {
  return HANDOFF_EVENTS.has(activity.name as string);
}

/** `extraInfo` of a value: the value when it is an object (JSON-safe, without secrets), else `{ value }`, or nothing. */
function infoOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  return jsonSafeObject(isObject(value) ? value : { value });
}

/**
 * The custom event of an `event` or `trace` activity the bot sent, for the user it went to: an
 * event is named after itself (`extraInfo` = its value); a trace is named `trace` (`extraInfo` =
 * `{ name, label, valueType, value }`). `undefined` for a nameless event.
 */
export function botEventOf(activity: ActivityLike): CustomEvent | undefined {
  const base: { userId: string; conversationId?: string } = { userId: idOf(activity.recipient?.id) ?? '' };
  const conversationId = conversationIdOf(activity);
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
  if (conversationId !== undefined) base.conversationId = conversationId;
  if (activity.type === 'trace') {
    const extraInfo = jsonSafeObject({ name: activity.name, label: activity.label, valueType: activity.valueType, value: activity.value }) ?? {};
    return { type: 'customEvent', name: 'trace', ...base, extraInfo };
  }
  if (typeof activity.name !== 'string' || activity.name === '') return undefined;
  const event: CustomEvent = { type: 'customEvent', name: activity.name, ...base };
  const extraInfo = infoOf(activity.value);
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
  if (extraInfo !== undefined) event.extraInfo = extraInfo;
  return event;
}

/** One custom event per member a `conversationUpdate` added or removed, the bot (its recipient) excepted. */
export function membershipEventsOf(activity: ActivityLike): CustomEvent[] {
  const events: CustomEvent[] = [];
  const botId = idOf(activity.recipient?.id);
  for (const [field, name] of [['membersAdded', 'memberAdded'], ['membersRemoved', 'memberRemoved']] as const) {
    const members: unknown = activity[field];
    // Stryker disable next-line ArrayDeclaration: an element that is not an object gives no event, so a non-array gives none either way
    for (const member of Array.isArray(members) ? members : []) {
      const id = isObject(member) ? idOf(member.id) : undefined;
      if (id === undefined || id === '' || id === botId) continue;
      const event: CustomEvent = { type: 'customEvent', name, userId: id };
      const conversationId = conversationIdOf(activity);
      // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
      if (conversationId !== undefined) event.conversationId = conversationId;
      if (typeof member.name === 'string' && member.name !== '') event.extraInfo = { name: member.name };
      events.push(event);
    }
  }
  return events;
}
