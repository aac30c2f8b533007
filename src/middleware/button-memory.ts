/**
 * The buttons the bot offered in the last few messages of each conversation, so that an incoming
 * message whose text or value is one of them (a click on a card, also on an older card the user
 * scrolled back to) can be recorded as a click on that button. Bounded: `CARDS_PER_CONVERSATION`
 * messages per conversation, and a number of conversations, the ones used longest ago forgotten
 * first. Per middleware, in memory: a bot scaled out over several processes only recognises clicks
 * that come back to the process that offered them.
 */
import type { Button } from '../protocol/index.js';
import { channelOf } from './channels.js';
import type { ActivityLike } from './sdk-types.js';
import { idOf } from './values.js';

/**
 * How many of a conversation's messages with buttons are remembered (the newest ones): Web Chat
 * and Teams keep earlier cards clickable, and a user may scroll back a few messages to click one.
 */
export const CARDS_PER_CONVERSATION = 5;

/**
 * The buttons offered in a conversation, newest message first; each message's buttons in document
 * order. Only the newest message has its suggested actions (quick replies): clients hide them once
 * another message arrives, so an older message offers only its cards' buttons.
 */
export type OfferedButtons = readonly (readonly Button[])[];

/** One remembered message: its cards' buttons, and its suggested actions (offered only while it is the newest). */
interface OfferedMessage {
  readonly card: readonly Button[];
  readonly suggested: readonly Button[];
}

/**
 * The buttons of the last `CARDS_PER_CONVERSATION` messages with buttons per conversation, for at
 * most `capacity` conversations; over that, the conversation used (offered buttons or looked up)
 * longest ago is forgotten first. Never throws.
 */
export class ButtonMemory {
  private readonly conversations = new Map<string, OfferedMessage[]>();

  /** @param capacity Conversations remembered at most; 0 remembers none. */
  constructor(private readonly capacity: number) {}

  /**
   * Remembers the buttons a message the bot sent offered in a conversation, as its newest; the
   * oldest message beyond `CARDS_PER_CONVERSATION` is forgotten. `suggested` is how many of the
   * buttons, at the end, are suggested actions rather than card buttons. A message without buttons
   * only hides the suggested actions of the one before it, as clients do.
   */
  remember(conversationKey: string, buttons: readonly Button[], suggested = 0): void {
    const before = this.conversations.get(conversationKey);
    if (buttons.length === 0) {
      if (before !== undefined) before[0] = { card: before[0].card, suggested: [] };
      return;
    }
    const split = buttons.length - suggested;
    const message: OfferedMessage = { card: buttons.slice(0, split), suggested: buttons.slice(split) };
    const messages = [message, ...(before ?? []).slice(0, CARDS_PER_CONVERSATION - 1)];
    this.conversations.delete(conversationKey);
    this.conversations.set(conversationKey, messages);
    // Over capacity, the conversation used longest ago goes (with capacity 0, the one just set).
    if (this.conversations.size > this.capacity) this.conversations.delete(this.conversations.keys().next().value as string);
  }

  /**
   * The buttons offered in a conversation, newest message first (the newest with its suggested
   * actions, the older ones with their cards' buttons only; messages left with no button are left
   * out), or `undefined` when the conversation is not remembered. Looking a conversation up makes
   * it the most recently used.
   */
  offered(conversationKey: string): OfferedButtons | undefined {
    const messages = this.conversations.get(conversationKey);
    if (messages === undefined) return undefined;
    this.conversations.delete(conversationKey);
    this.conversations.set(conversationKey, messages);
    const [newest, ...older] = messages;
    return [[...newest.card, ...newest.suggested], ...older.map((m) => m.card)].filter((buttons) => buttons.length > 0);
  }
}

/** The key of an activity's conversation: channel (as the channel sent it) and conversation id (a numeric id as its digits; any other non-string counts as absent). */
export function conversationKey(activity: ActivityLike): string {
  // Stryker disable next-line StringLiteral: any fixed text for an absent id keys those conversations alike
  return `${channelOf(activity)}\u0000${idOf(activity.conversation?.id) ?? ''}`;
}
