/**
 * What tracking keeps for one turn, in `context.turnState` under a symbol key: the intent of the
 * turn's incoming record, the intent of its next outgoing record, and how to log events. Nothing
 * lives at module level, so concurrent turns never see each other's state.
 */
import type { ActivityLike, TurnContextLike } from './sdk-types.js';
import type { PlatformKind } from '../protocol/index.js';
import type { TrackingEventInput } from '../client/currency.js';
import type { IntentSource } from './intents.js';

/**
 * The turn-state key. `Symbol.for` so that two copies of this package in one process (an ESM and
 * a CommonJS build, say) share a turn's state.
 */
export const TURN_STATE_KEY: unique symbol = Symbol.for('botbuilder-conversation-analytics.turn') as never;

/** An event as `trackEvent` takes it: `userId` and `conversationId` may be left for the turn to fill. */
export type EventInput = TrackingEventInput extends infer E
  ? E extends TrackingEventInput
    ? Omit<E, 'userId'> & { userId?: string }
    : never
  : never;

/** Logs an event for the turn whose activity is given; installed by the first tracking middleware of the turn. */
export type TurnEventLogger = (activity: ActivityLike, event: EventInput, platform: PlatformKind | undefined, trackedAt: number) => void;

/** A turn's tracking state. */
export interface TurnTracking {
  /** Set by the first tracking middleware that runs in the turn. */
  logEvent?: TurnEventLogger;
  /** The intent for the turn's incoming record, as given (converted when the record is built). */
  intent?: IntentSource;
  /** True when `intent` came from `setIntent`: an explicit intent is never replaced by a recognizer trace. */
  intentIsExplicit: boolean;
  /** True while a tracked incoming record waits to be queued. */
  incomingPending: boolean;
  /** True once the incoming record is queued: later intents no longer reach it. */
  incomingQueued: boolean;
  /** Events the bot logged before the incoming record was queued; queued right after it, so they follow it. */
  heldEvents?: (() => void)[];
  /** The intent for the turn's next outgoing message. */
  nextOutgoingIntent?: IntentSource;
  /** Outgoing message activities of this turn that carry an intent. */
  outgoingIntents?: Map<object, IntentSource>;
}

/**
 * The tracking state of a turn, created on first use. Throws when `context` has no turn state
 * (not a turn context, or a context used after its turn ended); callers catch.
 */
export function turnTracking(context: TurnContextLike): TurnTracking {
  const states = context.turnState;
  let state = states.get(TURN_STATE_KEY) as TurnTracking | undefined;
  if (state === undefined) {
    state = { intentIsExplicit: false, incomingPending: false, incomingQueued: false };
    states.set(TURN_STATE_KEY, state);
  }
  return state;
}

/**
 * Attaches an intent to the turn's incoming record: an `Intent`, just its name, or a
 * recognizer's result (its top intent, entities and score, see `intentFromRecognizerResult`). Call it
 * before the bot's first reply: the incoming record is queued at the first outgoing message.
 * An explicit intent wins over one picked up from a recognizer's trace; a later call replaces
 * an earlier one.
 *
 * @returns `true` when the intent will go with the incoming record; `false` when it came too late
 * (the incoming record was already queued) or `context` is not a live turn context. Never throws.
 */
export function setIntent(context: TurnContextLike, intent: IntentSource): boolean {
  try {
    const state = turnTracking(context);
    if (state.incomingQueued) return false;
    state.intent = intent;
    state.intentIsExplicit = true;
    return true;
  } catch {
    return false;
  }
}

/**
 * Sets the intent of the turn's next outgoing message record (typing, trace and other
 * non-message activities do not use it up). A later call before that message replaces it.
 *
 * @returns `false` when `context` is not a live turn context, else `true`. Never throws.
 */
export function setOutgoingIntent(context: TurnContextLike, intent: IntentSource): boolean {
  try {
    turnTracking(context).nextOutgoingIntent = intent;
    return true;
  } catch {
    return false;
  }
}
