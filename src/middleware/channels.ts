/**
 * Which of the spec's platforms a Bot Framework channel's records go to.
 */
import type { ActivityLike } from './sdk-types.js';
import type { PlatformKind } from '../protocol/index.js';

/**
 * Picks the platform for an activity's records from its channel. Must return one of `sms`,
 * `universal`, `directMessage`, `messenger`; any other value makes the record refused by the
 * client (reported through its `onError`/logger, never thrown into the turn).
 *
 * `channelId` is the channel as the channel sent it (`msteams`, never the Agents SDK's composite
 * `msteams:COPILOT`; the sub-channel is in the activity's `ProductInfo` entity).
 *
 * Typed as a method, so TypeScript compares its `activity` parameter both ways: a function
 * written for either SDK's own activity type fits (botbuilder's `Partial<Activity>`, whose
 * `timestamp` is a `Date`, or the Agents SDK's `Activity` class), as does one taking `ActivityLike`.
 *
 * @example
 * const platformForChannel: PlatformForChannel = (channelId, activity: Partial<Activity>) =>
 *   channelId === 'facebook' ? 'messenger' : 'universal';
 */
export type PlatformForChannel = {
  platformForChannel(channelId: string, activity: ActivityLike): PlatformKind;
}['platformForChannel'];

/**
 * The channel of an activity as the channel sent it: the Agents SDK's `Activity` class answers
 * `channelId` with `channel:subChannel` when it has a `ProductInfo` entity and keeps the sent value
 * in `channelIdChannel`; botbuilder's activity and plain objects have it in `channelId`. `''` when
 * neither is a string. Never throws.
 */
export function channelOf(activity: ActivityLike): string {
  try {
    const base: unknown = (activity as { channelIdChannel?: unknown }).channelIdChannel;
    if (typeof base === 'string') return base;
    return typeof activity.channelId === 'string' ? activity.channelId : '';
  } catch {
    return '';
  }
}

/**
 * The default channel mapping: `facebook` → messenger, `sms` and `twilio-sms` → sms, `twitter` → directMessage,
 * every other channel (webchat, directline, msteams, emulator, slack, test, …) → universal.
 */
export function defaultPlatformForChannel(channelId: string): PlatformKind {
  switch (channelId) {
    case 'facebook':
      return 'messenger';
    case 'sms':
    case 'twilio-sms':
      return 'sms';
    case 'twitter':
      return 'directMessage';
    default:
      return 'universal';
  }
}
