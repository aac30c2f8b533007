/**
 * The in-turn half of tracking: what runs inside a bot's turn. It only captures references,
 * reads a few fields and queues tasks; it never maps, validates, waits or throws.
 */
import type { ActivityLike, ResourceResponseLike, TurnContextLike } from './sdk-types.js';
import { isAdaptiveCardAction, isTaskFetch } from './attachments.js';
import { isHandoff, isReceipt } from './events.js';
import { isFeedbackInvoke } from './feedback.js';
import { recognizerResultOfTrace } from './intents.js';
import type { RecordLogger } from './record-logger.js';
import { turnTracking, type TurnTracking } from './turn-state.js';

function stateOf(context: TurnContextLike, records: RecordLogger): TurnTracking {
  const state = turnTracking(context);
  if (state.logEvent === undefined) state.logEvent = records.eventLogger;
  return state;
}

/**
 * Watches a turn's incoming activity. A message (or a tracked event activity) is queued at the
 * turn's first outgoing message (so it goes before the turn's replies and a message carries any
 * intent set until then) or at the end of the turn, whichever comes first; recognizer traces sent before that set its intent unless
 * `setIntent` did. Events `trackEvent` held until then are queued right after it. Returns the
 * function to call when the turn ends (also when the bot threw), or `undefined` when the
 * activity is not tracked.
 */
export function watchIncoming(context: TurnContextLike, records: RecordLogger): (() => void) | undefined {
  try {
    const state = stateOf(context, records);
    const activity = context.activity;
    const type = activity?.type;
    if (records.trackFeedback && isFeedbackInvoke(activity)) {
      records.deferFeedback(activity, Date.now());
      return undefined;
    }
    if (type === 'conversationUpdate' && records.trackMembership) {
      records.deferMembership(activity, Date.now());
      return undefined;
    }
    // Clicks that arrive as invokes are recorded like messages: an Adaptive Card Action.Execute, and a
    // task/fetch that carries an offered button (checked after the turn; only a middleware that
    // remembers the buttons it saw offered can tell). No other invoke is a message.
    const isMessage = type === 'message' || isAdaptiveCardAction(activity) || (records.remembersButtons && isTaskFetch(activity));
    const isTrackedEvent = type === 'event' && (records.trackEventActivities || (records.trackHandoffs && isHandoff(activity)));
    if ((!isMessage && !isTrackedEvent) || isReceipt(activity)) return undefined;
    const receivedAt = Date.now();
    let queued = false;
    state.incomingPending = true;
    const queue = (): void => {
      if (queued) return;
      queued = true;
      state.incomingQueued = true;
      records.deferIncoming(activity, isMessage ? state.intent : undefined, receivedAt);
      const held = state.heldEvents;
      state.heldEvents = undefined;
      if (held !== undefined) for (const log of held) log();
    };
    // Queued at the first reply, so it goes before the replies it led to (an event activity too).
    context.onSendActivities((_context, activities: ActivityLike[], next: () => Promise<ResourceResponseLike[]>) => {
      // Stryker disable next-line ConditionalExpression: once the incoming record is queued, queue() does nothing and an intent read from a trace reaches no record
      if (!queued) {
        try {
          for (const sent of activities) {
            if (sent.type === 'message') {
              queue();
              break;
            }
            if (isMessage && sent.type === 'trace' && !state.intentIsExplicit) {
              const result = recognizerResultOfTrace(sent);
              if (result !== undefined) state.intent = result;
            }
          }
        } catch (error) {
          records.reportInternal(error);
        }
      }
      return next();
    });
    return queue;
  } catch (error) {
    records.reportInternal(error);
    return undefined;
  }
}

/**
 * Watches what the turn sends: after the channel accepted a batch (`next()` returned), each
 * message activity in it is queued as an outgoing record with its ResourceResponse, and the
 * first one takes the intent set by `setOutgoingIntent`. The ResourceResponses are returned
 * unchanged; a failed send rejects unchanged and records nothing.
 */
export function watchOutgoing(context: TurnContextLike, records: RecordLogger): void {
  try {
    const state = stateOf(context, records);
    context.onSendActivities(async (_context, activities: ActivityLike[], next: () => Promise<ResourceResponseLike[]>) => {
      try {
        // Stryker disable next-line ConditionalExpression: without an outgoing intent, the first message is mapped to undefined, which is what an unmapped one gets
        if (state.nextOutgoingIntent !== undefined) {
          const first = activities.find((a) => a.type === 'message');
          if (first !== undefined) {
            (state.outgoingIntents ??= new Map()).set(first, state.nextOutgoingIntent);
            state.nextOutgoingIntent = undefined;
          }
        }
      } catch (error) {
        records.reportInternal(error);
      }
      // When the bot sent the batch: the time of its records that have none of their own.
      const sentAt = Date.now();
      const responses = await next();
      try {
        for (let i = 0; i < activities.length; i++) {
          const sent = activities[i];
          if (sent.type === 'message') records.deferOutgoing(sent, responses?.[i], state.outgoingIntents?.get(sent), sentAt);
          else if (sent.type === 'trace' ? records.trackBotEvents : sent.type === 'event' && (records.trackBotEvents || (records.trackHandoffs && isHandoff(sent)))) {
            // Like trackEvent's events, it follows the message that led to it.
            const log = (): void => records.deferBotEvent(sent, sentAt);
            if (state.incomingPending && !state.incomingQueued) (state.heldEvents ??= []).push(log);
            else log();
          }
        }
      } catch (error) {
        records.reportInternal(error);
      }
      return responses;
    });
  } catch (error) {
    records.reportInternal(error);
  }
}
