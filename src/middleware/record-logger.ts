/**
 * The work done off the turn: mapping activities to records and handing them to the client.
 * Inside a turn only the `defer…` methods run; each queues one task with `client.defer`, which
 * runs it after the caller returns. A task that throws is reported by the client.
 */
import type { ActivityLike, ResourceResponseLike } from './sdk-types.js';
import { eventWithTime, messageWithTime, type TrackingClient } from '../client/index.js';
import type { PlatformKind, TrackingEvent } from '../protocol/index.js';
import { isTaskFetch, isTaskFetchClick, suggestedButtonsOf } from './attachments.js';
import { ButtonMemory, conversationKey } from './button-memory.js';
import { channelOf, defaultPlatformForChannel } from './channels.js';
import { botEventOf, customEventOf, fillEvent, membershipEventsOf } from './events.js';
import { feedbackEventOf } from './feedback.js';
import { toIntent, type IntentSource } from './intents.js';
import { incomingMessage, outgoingMessage } from './map-generic.js';
import { messengerIncoming, messengerOutgoing } from './map-messenger.js';
import type { TrackingMiddlewareOptions } from './options.js';
import type { EventInput, TurnEventLogger } from './turn-state.js';
import { epochMs, orElse } from './values.js';

/**
 * Maps a middleware's activities to records and logs them through its client. The `defer…`
 * methods run in the turn and only queue a task; the task maps, then `client.trackAndForget`
 * validates and queues (refusals are reported by the client; a task that throws is reported by
 * the client as a failed deferred task).
 */
export class RecordLogger {
  /** Logs an event for a turn; installed in the turn state for `trackEvent`. */
  readonly eventLogger: TurnEventLogger;
  private warned = false;

  constructor(
    readonly client: TrackingClient,
    private readonly options: TrackingMiddlewareOptions,
    private readonly buttons: ButtonMemory | undefined,
  ) {
    this.eventLogger = (activity, event, platform, trackedAt) => this.deferEvent(activity, event, platform, trackedAt);
  }

  /** Whether incoming `event` activities become custom events. */
  get trackEventActivities(): boolean {
    return this.options.trackEventActivities === true;
  }

  /** Whether the Teams feedback invoke becomes a `feedback` custom event. */
  get trackFeedback(): boolean {
    return this.options.trackFeedback !== false;
  }

  /** Whether `conversationUpdate` members added and removed become events. */
  get trackMembership(): boolean {
    return this.options.trackMembership === true;
  }

  /** Whether handoff protocol events become events. */
  get trackHandoffs(): boolean {
    return this.options.trackHandoffs === true;
  }

  /** Whether the bot's own event and trace activities become events. */
  get trackBotEvents(): boolean {
    return this.options.trackBotEvents === true;
  }

  /** Whether this middleware remembers the buttons offered in each conversation (TrackingMiddleware with `rememberButtons` on). */
  get remembersButtons(): boolean {
    return this.buttons !== undefined;
  }

  /** Queues the events of the members a `conversationUpdate` added or removed, dated with the activity's time (else `receivedAt`). */
  deferMembership(activity: ActivityLike, receivedAt: number): void {
    this.client.defer(() => {
      for (const event of membershipEventsOf(activity)) this.logActivityEvent(activity, event, receivedAt);
    });
  }

  /** Queues the event of an `event` or `trace` activity the bot sent at `sentAt` (dated with its own time, else that). */
  deferBotEvent(activity: ActivityLike, sentAt: number): void {
    this.client.defer(() => {
      const event = botEventOf(activity);
      if (event !== undefined) this.logActivityEvent(activity, event, sentAt);
    });
  }

  /** Queues the `feedback` event of a Teams feedback invoke, dated with the invoke's time (else `receivedAt`). */
  deferFeedback(activity: ActivityLike, receivedAt: number): void {
    this.client.defer(() => {
      const event = feedbackEventOf(activity);
      if (event !== undefined) this.logActivityEvent(activity, event, receivedAt);
    });
  }

  /** Queues the incoming record of a turn (a message, or an event activity as a custom event). */
  deferIncoming(activity: ActivityLike, intent: IntentSource | undefined, receivedAt: number): void {
    this.client.defer(() => this.logIncoming(activity, intent, receivedAt));
  }

  /** Queues the outgoing record of one message activity the channel accepted, sent at `sentAt`. */
  deferOutgoing(activity: ActivityLike, response: ResourceResponseLike | undefined, intent: IntentSource | undefined, sentAt: number): void {
    this.client.defer(() => this.logOutgoing(activity, response, intent, sentAt));
  }

  /** Queues an event `trackEvent` logged at `trackedAt` in the turn whose activity is given, dated with that time unless it has one. */
  deferEvent(activity: ActivityLike, event: EventInput, platform: PlatformKind | undefined, trackedAt: number): void {
    this.client.defer(() => {
      this.client.trackAndForget(platform ?? this.platformOf(activity), 'event', eventWithTime(fillEvent(event, activity), isoTime(trackedAt)));
    });
  }

  /** Reports a failure of tracking code inside a turn; never throws. */
  reportInternal(error: unknown): void {
    try {
      if (this.options.onError !== undefined) {
        this.options.onError(error);
      } else if (!this.warned) {
        this.warned = true;
        process.emitWarning(
          `Conversation analytics skipped tracking in a turn because tracking code failed; the turn itself was not affected: ${(error as Error)?.message ?? String(error)}`,
          'TrackingWarning',
        );
      }
    } catch {
      // Reporting must never reach the turn.
    }
  }

  private platformOf(activity: ActivityLike): PlatformKind {
    return (this.options.platformForChannel ?? defaultPlatformForChannel)(channelOf(activity), activity);
  }

  private intentOf(source: IntentSource | undefined) {
    // Stryker disable next-line ConditionalExpression: toIntent(undefined) is undefined too; the check only skips the call
    return source === undefined ? undefined : toIntent(source, { minScore: this.options.minIntentScore, noneIntents: this.options.noneIntents });
  }

  private logIncoming(activity: ActivityLike, intent: IntentSource | undefined, receivedAt: number): void {
    const platform = this.platformOf(activity);
    if (activity.type === 'event') {
      const event = customEventOf(activity);
      if (event !== undefined) this.logActivityEvent(activity, event, receivedAt);
      return;
    }
    const offered = this.buttons?.offered(conversationKey(activity));
    // A task/fetch invoke is a click only on a button the bot offered; any other is not recorded.
    if (isTaskFetch(activity) && !isTaskFetchClick(activity, offered)) return;
    const body = platform === 'messenger' ? messengerIncoming(activity, this.intentOf(intent), receivedAt) : incomingMessage(activity, this.intentOf(intent), offered);
    this.client.trackAndForget(platform, 'incoming', body);
  }

  /** Logs an event made from an activity, dated with the activity's own time, else `fallback`, unless the event has a time of its own. */
  private logActivityEvent(activity: ActivityLike, event: TrackingEvent, fallback: number): void {
    this.client.trackAndForget(this.platformOf(activity), 'event', eventWithTime(event, isoTime(epochMs(orElse(() => activity.timestamp, undefined), fallback))));
  }

  private logOutgoing(activity: ActivityLike, response: ResourceResponseLike | undefined, intent: IntentSource | undefined, sentAt: number): void {
    const platform = this.platformOf(activity);
    if (platform === 'messenger') {
      const body = messengerOutgoing(activity, response, this.intentOf(intent), { accessToken: this.options.messengerAccessToken, uri: this.options.messengerUri });
      this.client.trackAndForget(platform, 'outgoing', body);
      return;
    }
    // Dated with when it was sent: its own timestamp (in platformJson already), else the send time.
    const message = messageWithTime(outgoingMessage(activity, this.intentOf(intent)), isoTime(sentAt));
    // The id the channel gave the reply (its ResourceResponse), when the activity had none: what a
    // user's feedback on this reply refers to (its replyToId).
    if (typeof response?.id === 'string' && response.id !== '' && message.platformJson !== undefined && message.platformJson.id === undefined) message.platformJson.id = response.id;
    this.buttons?.remember(conversationKey(activity), message.buttons ?? [], orElse(() => suggestedButtonsOf(activity).length, 0));
    this.client.trackAndForget(platform, 'outgoing', message);
  }
}

/** Epoch milliseconds as ISO 8601 text, as activities carry their `timestamp`. */
function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The button memory a middleware that sees both directions uses (`rememberButtons`, default 1,000 conversations, each with its last `CARDS_PER_CONVERSATION` messages with buttons). */
export function buttonMemoryFor(options: TrackingMiddlewareOptions): ButtonMemory | undefined {
  const capacity = options.rememberButtons ?? 1000;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a memory of capacity 0 remembers nothing (button-memory.ts), so no click is recognised either way, and a task/fetch is recorded only as a click on a remembered button
  return capacity > 0 ? new ButtonMemory(capacity) : undefined;
}
