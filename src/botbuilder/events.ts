/**
 * Events: `trackEvent` from a bot's turn, and incoming `event` activities as custom events.
 */
import type { Activity, TurnContext } from 'botbuilder';
import type { CustomEvent, PlatformKind, TrackingEvent } from '../spec/index.js';
import { jsonSafeObject } from './platform-json.js';
import { TURN_STATE_KEY, type EventInput, type TurnTracking } from './turn-state.js';
import { isObject } from './values.js';

/** Event activities the adapters make themselves (proactive turns); never tracked as user events. */
const ADAPTER_EVENTS = new Set(['ContinueConversation', 'CreateConversation']);

/** The end user of a turn: the activity's `from`, unless it is the bot (role `bot`), then its `recipient`. */
export function endUserId(activity: Partial<Activity>): string | undefined {
  return activity.from?.role === 'bot' ? activity.recipient?.id : activity.from?.id;
}

/**
 * The custom event of an incoming `event` activity: `name` = `activity.name`, `userId` = `from.id`,
 * `conversationId`, and `extraInfo` = `value` when it is an object (JSON-safe, without secrets).
 * `undefined` for an event without a name and for the adapters' own `ContinueConversation` and
 * `CreateConversation` events.
 */
export function customEventOf(activity: Partial<Activity>): CustomEvent | undefined {
  const name = activity.name;
  if (typeof name !== 'string' || name === '' || ADAPTER_EVENTS.has(name)) return undefined;
  const event: CustomEvent = { type: 'customEvent', name, userId: activity.from?.id ?? '' };
  if (typeof activity.conversation?.id === 'string') event.conversationId = activity.conversation.id;
  const extraInfo = isObject(activity.value) ? jsonSafeObject(activity.value) : undefined;
  if (extraInfo !== undefined) event.extraInfo = extraInfo;
  return event;
}

/** An event with the turn's end user and conversation filled in where the bot left them out. */
export function fillEvent(event: EventInput, activity: Partial<Activity>): TrackingEvent {
  const filled = { ...event } as TrackingEvent;
  if (filled.userId === undefined) {
    const userId = endUserId(activity);
    if (userId !== undefined) filled.userId = userId;
  }
  if (filled.conversationId === undefined && typeof activity.conversation?.id === 'string') filled.conversationId = activity.conversation.id;
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
 * incoming message is queued waits for it, so it is always recorded after that message.
 * Building and checking the record happen after the call returns; a record the spec refuses is
 * reported through the client's `onError`/logger.
 *
 * @returns `true` when the event was handed to tracking; `false` when no tracking middleware ran
 * in this turn or `context` is not a live turn context. Never throws, never waits.
 *
 * @example
 * trackEvent(context, { type: 'revenueEvent', name: 'purchase', amount: 9.99, referenceNumber: 'A-1' });
 */
export function trackEvent(context: TurnContext, event: EventInput, options: TrackEventOptions = {}): boolean {
  try {
    const state = context.turnState.get(TURN_STATE_KEY) as TurnTracking | undefined;
    if (state?.logEvent === undefined || !isObject(event)) return false;
    const { logEvent } = state;
    const activity = context.activity;
    const copy = { ...event } as EventInput;
    const log = (): void => logEvent(activity, copy, options.platform);
    // An event follows the message that led to it: hold it until the incoming record is queued.
    if (state.incomingPending && !state.incomingQueued) (state.heldEvents ??= []).push(log);
    else log();
    return true;
  } catch {
    return false;
  }
}
