/**
 * Activities as records of the generic message shape (sms, universal and direct-message platforms).
 */
import type { Activity } from 'botbuilder';
import type { Button, Intent, Message } from '../spec/index.js';
import { buttonClickOf, buttonsOf, imagesOf } from './attachments.js';
import { jsonSafeObject } from './platform-json.js';

function baseMessage(activity: Partial<Activity>, userId: string | undefined, intent: Intent | undefined): Message {
  const message: Message = { text: typeof activity.text === 'string' ? activity.text : '', userId: userId ?? '' };
  if (intent !== undefined) message.intent = intent;
  const images = imagesOf(activity);
  if (images.length > 0) message.images = images;
  const buttons = buttonsOf(activity);
  if (buttons.length > 0) message.buttons = buttons;
  return message;
}

function withPlatformJson(message: Message, activity: Partial<Activity>): Message {
  const platformJson = jsonSafeObject(activity);
  if (platformJson !== undefined) message.platformJson = platformJson;
  return message;
}

/**
 * The incoming record of a message activity: `text` (`''` when the activity has none), `userId` =
 * `from.id`, `intent`, `images`, `buttons`, `postback` when the message is a button click (see
 * `buttonClickOf`; `offered` are the buttons the bot offered last in the conversation), and
 * `platformJson` = the activity, JSON-safe and without secrets. A missing `from.id` gives an
 * empty `userId`, which the client refuses and reports.
 */
export function incomingMessage(activity: Partial<Activity>, intent: Intent | undefined, offered?: readonly Button[]): Message {
  const message = baseMessage(activity, activity.from?.id, intent);
  const buttonId = buttonClickOf(activity, offered);
  if (buttonId !== undefined) message.postback = { buttonClick: { buttonId } };
  return withPlatformJson(message, activity);
}

/** The outgoing record of a message activity: as `incomingMessage`, with `userId` = `recipient.id` (the end user, never the bot) and no postback. */
export function outgoingMessage(activity: Partial<Activity>, intent: Intent | undefined): Message {
  return withPlatformJson(baseMessage(activity, activity.recipient?.id, intent), activity);
}
