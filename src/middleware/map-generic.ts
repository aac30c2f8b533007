/**
 * Activities as records of the generic message shape (sms, universal and direct-message platforms).
 */
import type { ActivityLike } from './sdk-types.js';
import type { Button, Intent, Message } from '../protocol/index.js';
import { buttonClickOf, buttonsOf, cardTextOf, imagesOf } from './attachments.js';
import { jsonSafeObject } from './platform-json.js';
import { idOf } from './values.js';

/** The text of a message: its `text` (`null` or missing → `''`), or, for a card-only message, what its user read first on the card. */
function textOf(activity: ActivityLike): string {
  const text = typeof activity.text === 'string' ? activity.text : '';
  return text.trim() !== '' ? text : (cardTextOf(activity) ?? text);
}

function baseMessage(activity: ActivityLike, userId: unknown, intent: Intent | undefined): Message {
  const message: Message = { text: textOf(activity), userId: idOf(userId) ?? '' };
  if (intent !== undefined) message.intent = intent;
  const images = imagesOf(activity);
  if (images.length > 0) message.images = images;
  const buttons = buttonsOf(activity);
  if (buttons.length > 0) message.buttons = buttons;
  return message;
}

function withPlatformJson(message: Message, activity: ActivityLike): Message {
  const platformJson = jsonSafeObject(activity);
  if (platformJson !== undefined) message.platformJson = platformJson;
  return message;
}

/**
 * The incoming record of a message activity (or of an Adaptive Card `Action.Execute` invoke):
 * `text` (`''` when the activity has none; for a card-only message, the card's title or first
 * text block), `userId` = `from.id` (a numeric id as its digits), `intent`, `images`, `buttons`, `postback` when the message is a button click (see
 * `buttonClickOf`; `offered` are the buttons the bot offered last in the conversation), and
 * `platformJson` = the activity, JSON-safe and without secrets. A missing `from.id` gives an
 * empty `userId`, which the client refuses and reports.
 */
export function incomingMessage(activity: ActivityLike, intent: Intent | undefined, offered?: readonly Button[]): Message {
  const message = baseMessage(activity, activity.from?.id, intent);
  const buttonId = buttonClickOf(activity, offered);
  if (buttonId !== undefined) message.postback = { buttonClick: { buttonId } };
  return withPlatformJson(message, activity);
}

/** The outgoing record of a message activity: as `incomingMessage`, with `userId` = `recipient.id` (the end user, never the bot) and no postback. */
export function outgoingMessage(activity: ActivityLike, intent: Intent | undefined): Message {
  return withPlatformJson(baseMessage(activity, activity.recipient?.id, intent), activity);
}
