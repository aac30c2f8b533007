/**
 * Which of the spec's platforms a Bot Framework channel's records go to.
 */
import type { ActivityLike } from './sdk-types.js';
import type { PlatformKind } from '../protocol/index.js';

/**
 * Picks the platform for an activity's records from its channel. Must return one of `sms`,
 * `universal`, `directMessage`, `messenger`; any other value makes the record refused by the
 * client (reported through its `onError`/logger, never thrown into the turn).
 */
export type PlatformForChannel = (channelId: string, activity: ActivityLike) => PlatformKind;

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
