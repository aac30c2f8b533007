/**
 * The buttons the bot offered last in each conversation, so that an incoming message whose text
 * is a button's value (an imBack click) can be recorded as a click on that button. Bounded: the
 * conversations used longest ago are forgotten first. Per middleware, in memory: a bot scaled out
 * over several processes only recognises clicks that come back to the process that offered them.
 */
import type { Button } from '../protocol/index.js';
import { channelOf } from './channels.js';
import type { ActivityLike } from './sdk-types.js';
import { idOf } from './values.js';

/** Last offered buttons per conversation, bounded to `capacity` conversations (least recently offered forgotten first). Never throws. */
export class ButtonMemory {
  private readonly offered = new Map<string, readonly Button[]>();

  /** @param capacity Conversations remembered at most; 0 remembers none. */
  constructor(private readonly capacity: number) {}

  /** Remembers the buttons just offered in a conversation, replacing the ones offered before. */
  remember(conversationKey: string, buttons: readonly Button[]): void {
    if (buttons.length === 0) return;
    this.offered.delete(conversationKey);
    this.offered.set(conversationKey, buttons);
    // Over capacity, the conversation used longest ago goes (with capacity 0, the one just set).
    if (this.offered.size > this.capacity) this.offered.delete(this.offered.keys().next().value as string);
  }

  /** The buttons offered last in a conversation, if remembered. */
  lastOffered(conversationKey: string): readonly Button[] | undefined {
    return this.offered.get(conversationKey);
  }
}

/** The key of an activity's conversation: channel (as the channel sent it) and conversation id (a numeric id as its digits; any other non-string counts as absent). */
export function conversationKey(activity: ActivityLike): string {
  // Stryker disable next-line StringLiteral: any fixed text for an absent id keys those conversations alike
  return `${channelOf(activity)}\u0000${idOf(activity.conversation?.id) ?? ''}`;
}
