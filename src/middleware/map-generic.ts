/**
 * Activities as records of the generic message shape (sms, universal and direct-message platforms).
 */
import type { ActivityLike } from './sdk-types.js';
import type { Intent, Message } from '../protocol/index.js';
import type { OfferedButtons } from './button-memory.js';
import { buttonClickOf, buttonsOf, cardTextOf, imagesOf } from './attachments.js';
import { activityJson } from './platform-json.js';
import { idOf, orElse } from './values.js';

/** The text of a message: its `text` (`null` or missing → `''`), or, for a card-only message, what its user read first on the card. */
function textOf(activity: ActivityLike): string {
  const text = typeof activity.text === 'string' ? activity.text : '';
  return text.trim() !== '' ? text : (cardTextOf(activity) ?? text);
}

/** The fields both directions share; each is read on its own, so one that cannot be read leaves the others. */
function baseMessage(activity: ActivityLike, userId: () => unknown, intent: Intent | undefined): Message {
  const message: Message = { text: orElse(() => textOf(activity), ''), userId: orElse(() => idOf(userId()), undefined) ?? '' };
  if (intent !== undefined) message.intent = intent;
  const images = orElse(() => imagesOf(activity), []);
  if (images.length > 0) message.images = images;
  const buttons = orElse(() => buttonsOf(activity), []);
  if (buttons.length > 0) message.buttons = buttons;
  return message;
}

function withPlatformJson(message: Message, activity: ActivityLike): Message {
  const platformJson = activityJson(activity);
  // Stryker disable next-line ConditionalExpression: a field set to undefined is left out of the record's JSON, as one never set
  if (platformJson !== undefined) message.platformJson = platformJson;
  return message;
}

/**
 * The incoming record of a message activity (or of an Adaptive Card `Action.Execute` invoke):
 * `text` (`''` when the activity has none; for a card-only message, the card's title or first
 * text block), `userId` = `from.id` (a numeric id as its digits), `intent`, `images`, `buttons`, `postback` when the message is a button click (see
 * `buttonClickOf`; `offered` are the buttons the bot offered in the conversation's last few messages, newest first), and
 * `platformJson` = the activity as the channel sent it, JSON-safe and without secrets
 * (`activityJson`). A missing `from.id` gives an empty `userId`, which the client refuses and
 * reports. Each field is read on its own: one that cannot be read (a getter that throws) is left
 * out or empty, and the record keeps the others. Never throws.
 */
export function incomingMessage(activity: ActivityLike, intent: Intent | undefined, offered?: OfferedButtons): Message {
  // Stryker disable next-line OptionalChaining: reading the id of a missing from throws inside orElse, which gives the same empty userId
  const message = baseMessage(activity, () => activity.from?.id, intent);
  const buttonId = orElse(() => buttonClickOf(activity, offered), undefined);
  if (buttonId !== undefined) message.postback = { buttonClick: { buttonId } };
  return withPlatformJson(message, activity);
}

/** The outgoing record of a message activity: as `incomingMessage`, with `userId` = `recipient.id` (the end user, never the bot) and no postback. */
export function outgoingMessage(activity: ActivityLike, intent: Intent | undefined): Message {
  // Stryker disable next-line OptionalChaining: reading the id of a missing recipient throws inside orElse, which gives the same empty userId
  return withPlatformJson(baseMessage(activity, () => activity.recipient?.id, intent), activity);
}
