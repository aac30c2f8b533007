/**
 * What a user sees in an activity besides its text: images (image attachments and card images),
 * buttons (card buttons, Adaptive Card actions and suggested actions), and which offered button an
 * incoming message is a click on.
 */
import type { ActivityLike } from './sdk-types.js';
import type { Button, Image } from '../protocol/index.js';
import type { OfferedButtons } from './button-memory.js';
import { redactUrlSecrets } from './platform-json.js';
import { adaptiveActionButton, buttonOf, readCard } from './cards.js';
import { isObject, stringify } from './values.js';

export { buttonOf } from './cards.js';

function attachmentsOf(activity: ActivityLike): Record<string, any>[] {
  const attachments: unknown = activity.attachments;
  // Stryker disable next-line ArrayDeclaration,MethodExpression: a non-object attachment (a string, a number, null) is read by no reader: each reads fields it lacks, or throws and is skipped by eachAttachment
  return Array.isArray(attachments) ? attachments.filter(isObject) : [];
}

/** Runs `read` on each attachment; one whose fields throw when read is skipped, the others are still read. */
function eachAttachment(activity: ActivityLike, read: (attachment: Record<string, any>) => void): void {
  for (const attachment of attachmentsOf(activity)) {
    try {
      read(attachment);
    } catch {
      // A hostile attachment: skipped.
    }
  }
}

/** An image URL worth recording: a string that is not an inline `data:` URL (those can be megabytes), secrets masked. */
function imageUrl(url: unknown): string | undefined {
  return typeof url === 'string' && url !== '' && !/^data:/i.test(url) ? redactUrlSecrets(url) : undefined;
}

/** A URL whose path ends like an image file (`.png`, `.jpg`, `.gif`, `.webp`…). */
export function looksLikeImageUrl(url: string): boolean {
  return /\.(png|jpe?g|gif|webp|bmp|svg|heic)(?:[?#]|$)/i.test(url);
}

/** True for an attachment that is an image: an `image/*` content type, or no media type and a URL that names an image file. */
export function isImageAttachment(attachment: Record<string, any>): boolean {
  // Stryker disable next-line StringLiteral: any text that is not an image, video, audio or card type stands for none alike
  const type = typeof attachment.contentType === 'string' ? attachment.contentType : '';
  if (/^image(?:\/|$)/i.test(type)) return true;
  return !/^(video|audio)(?:\/|$)/i.test(type) && !/card/i.test(type) && typeof attachment.contentUrl === 'string' && looksLikeImageUrl(attachment.contentUrl);
}

/** Twilio sends at most this many media with one message. */
const MAX_TWILIO_MEDIA = 10;

/**
 * Image URLs of a Twilio MMS, as botbuilder-adapter-twilio-sms carries them in `channelData`:
 * incoming, Twilio's webhook fields `MediaUrl0…N`, each an image when its `MediaContentType0…N` is
 * `image/*`; outgoing, `mediaUrl` (a URL or a list of them, what the adapter hands to Twilio), each
 * an image when its URL names an image file (no content type is given). Other media (video, audio,
 * vCards, PDFs) are not images; they stay in `platformJson`. Secrets in URLs are masked.
 */
function twilioImageUrls(channelData: unknown): string[] {
  // Stryker disable next-line ConditionalExpression: a channelData that is not an object has no MediaUrl0 or mediaUrl (a string, a number, an array), or throws when read (null, undefined), which imagesOf skips
  if (!isObject(channelData)) return [];
  const urls: string[] = [];
  for (let i = 0; i < MAX_TWILIO_MEDIA; i++) {
    const url: unknown = channelData[`MediaUrl${i}`];
    if (url === undefined) break;
    const type: unknown = channelData[`MediaContentType${i}`];
    if (typeof type === 'string' && /^image\//i.test(type)) {
      const safe = imageUrl(url);
      if (safe !== undefined) urls.push(safe);
    }
  }
  const sent: unknown = channelData.mediaUrl;
  for (const url of Array.isArray(sent) ? sent : [sent]) {
    // Stryker disable next-line ConditionalExpression: imageUrl also takes only strings; the check is for looksLikeImageUrl's type
    const safe = typeof url === 'string' && looksLikeImageUrl(url) ? imageUrl(url) : undefined;
    if (safe !== undefined) urls.push(safe);
  }
  return urls;
}

/**
 * Images of an activity, in order: image attachments (their `contentUrl`), then each card's
 * images (and the media of video, audio and animation cards; see cards.ts), then a Twilio MMS's
 * images (see `twilioImageUrls`). Inline `data:` URLs are left out. An attachment whose fields
 * throw when read is skipped; the others are still read. Never throws.
 */
export function imagesOf(activity: ActivityLike): Image[] {
  const images: Image[] = [];
  eachAttachment(activity, (attachment) => {
    if (isImageAttachment(attachment)) {
      const url = imageUrl(attachment.contentUrl);
      if (url !== undefined) images.push({ url });
    }
    // Stryker disable next-line OptionalChaining: without a card, reading undefined throws after the attachment's own image was taken, and eachAttachment skips the rest of it, which reads nothing more
    for (const raw of readCard(attachment)?.imageUrls ?? []) {
      const url = imageUrl(raw);
      if (url !== undefined) images.push({ url });
    }
  });
  try {
    for (const url of twilioImageUrls(activity.channelData)) images.push({ url });
  } catch {
    // channelData whose fields throw when read: no Twilio media.
  }
  return images;
}

/** A button with the secrets of its URLs masked (an OpenUrl's or a sign-in link's query tokens and credentials), as in images and `platformJson`. */
function masked(button: Button): Button {
  return { id: redactUrlSecrets(button.id), label: redactUrlSecrets(button.label), value: redactUrlSecrets(button.value) };
}

/**
 * Buttons of an activity, in order: those of its cards (Adaptive Card actions included), then
 * `suggestedActions.actions`. Secrets in URLs (query tokens, credentials) are masked.
 */
export function buttonsOf(activity: ActivityLike): Button[] {
  return rawButtonsOf(activity).map(masked);
}

function rawButtonsOf(activity: ActivityLike): Button[] {
  const buttons: Button[] = [];
  // Stryker disable next-line OptionalChaining: without a card, reading undefined throws and eachAttachment skips that attachment, which has no buttons either way
  eachAttachment(activity, (attachment) => buttons.push(...(readCard(attachment)?.buttons ?? [])));
  return [...buttons, ...suggestedButtonsOf(activity)];
}

/**
 * The buttons of an activity's `suggestedActions.actions` (quick replies), in order: the last ones
 * `buttonsOf` gives. A hostile action (fields that throw when read) is skipped.
 */
export function suggestedButtonsOf(activity: ActivityLike): Button[] {
  const buttons: Button[] = [];
  const suggested = activity.suggestedActions?.actions;
  if (Array.isArray(suggested)) {
    for (const action of suggested) {
      try {
        if (isObject(action)) buttons.push(buttonOf(action));
      } catch {
        // A hostile action: skipped.
      }
    }
  }
  return buttons;
}

/**
 * The text a user reads first on a card-only message: the first card's title (else subtitle or
 * text) for Bot Framework cards, the first text block for an Adaptive Card. `undefined` when the
 * activity has no card with text.
 */
export function cardTextOf(activity: ActivityLike): string | undefined {
  let text: string | undefined;
  eachAttachment(activity, (attachment) => {
    // Stryker disable next-line OptionalChaining: without a card, reading undefined throws and eachAttachment skips that attachment, which has no text either way
    text ??= readCard(attachment)?.text;
  });
  return text;
}

/** True when every field of `part` is in `whole` with the same value (objects compared the same way, other values by JSON). */
function isSubset(part: Record<string, unknown>, whole: Record<string, unknown>): boolean {
  return Object.keys(part).every((key) => {
    const a = part[key];
    const b = whole[key];
    return isObject(a) && isObject(b) ? isSubset(a, b) : JSON.stringify(a) === JSON.stringify(b);
  });
}

/** The submit data a button carries, when its value is a JSON object (an Adaptive Card `Action.Submit` or `Action.Execute` with object data); `undefined` otherwise. */
function submitData(button: Button): Record<string, unknown> | undefined {
  if (!button.value.startsWith('{')) return undefined;
  try {
    const data: unknown = JSON.parse(button.value);
    return isObject(data) ? data : undefined;
  } catch {
    // Not JSON: not an Adaptive Card submit.
  }
  return undefined;
}

/** True for a button that carries no submit data of its own: no value, or data that is an empty JSON object (an `Action.Submit` or `Action.Execute` without `data`, or with `{}`). */
function isDataless(button: Button): boolean {
  const data = submitData(button);
  return button.value === '' || (data !== undefined && Object.keys(data).length === 0);
}

/**
 * The offered button an Adaptive Card submit is a click on (the submitted value is the action's
 * data plus the card's inputs): the button whose data the value holds, in the newest message that
 * offered one; else, in the newest message that offered buttons without data (an `Action.Submit`
 * or `Action.Execute` without `data`, or with `{}`, as forms often have), that button when it was
 * the only one. `undefined` when neither is found.
 */
function submittedButton(value: Record<string, unknown>, offered: OfferedButtons | undefined): Button | undefined {
  const messages = offered ?? [];
  for (const button of messages.flat()) {
    const data = submitData(button);
    if (data !== undefined && Object.keys(data).length > 0 && isSubset(data, value)) return button;
  }
  for (const buttons of messages) {
    const dataless = buttons.filter(isDataless);
    if (dataless.length > 0) return dataless.length === 1 ? dataless[0] : undefined;
  }
  return undefined;
}

/**
 * True for the invoke an Adaptive Card `Action.Execute` (Universal Actions) sends when a user
 * clicks it: `adaptiveCard/action` with an `action`. Not for the same invoke sent by an automatic
 * refresh (`trigger: 'automatic'`: the card's `refresh` action, run by the client, not a click).
 */
export function isAdaptiveCardAction(activity: ActivityLike): boolean {
  return activity.type === 'invoke' && activity.name === 'adaptiveCard/action' && isObject(activity.value) && isObject(activity.value.action) && activity.value.trigger !== 'automatic';
}

/** True for Teams' `task/fetch` invoke (a button that opens a dialog, a "task module"). */
export function isTaskFetch(activity: ActivityLike): boolean {
  return activity.type === 'invoke' && activity.name === 'task/fetch' && isObject(activity.value);
}

/**
 * The offered button a `task/fetch` invoke is a click on: one whose data the invoke's `value.data`
 * holds (an Adaptive Card `Action.Submit` with `msteams: { type: 'task/fetch' }`), or its `value`
 * (a Bot Framework card's `invoke` action). `undefined` when it carries no offered button.
 */
function taskFetchButton(value: Record<string, unknown>, offered: OfferedButtons | undefined): Button | undefined {
  return (isObject(value.data) ? submittedButton(value.data, offered) : undefined) ?? submittedButton(value, offered);
}

/** True for a `task/fetch` invoke that carries a button among `offered`: such an invoke is recorded as a click, any other is not. */
export function isTaskFetchClick(activity: ActivityLike, offered: OfferedButtons | undefined): boolean {
  return isTaskFetch(activity) && taskFetchButton(activity.value as Record<string, unknown>, offered) !== undefined;
}

/**
 * The id of the button an incoming message is a click on, or `undefined` when it is not a click.
 * `offered` are the buttons the bot offered in the last few messages of this conversation, newest
 * first (see `OfferedButtons`); where several match, the newest message's wins.
 * 1. an `adaptiveCard/action` invoke (`Action.Execute`): the offered button with its verb (without a
 *    verb, the one whose data it holds, as for a submit), else the verb (or its data); a `task/fetch` invoke: the offered button whose data it carries, else none;
 * 2. the activity has a `value` (postBack/messageBack with an object value, an Adaptive Card
 *    `Action.Submit`, whose value is the action's data plus the card's inputs): the offered button
 *    whose data it holds (or the one offered button without data), else the offered button whose
 *    value is the text (Teams' messageBack), else the value as a string;
 * 3. `channelData.postBack` or `channelData.messageBack` is set (Web Chat's postBack/messageBack): its text;
 * 4. its text equals the value (else the label) of an offered button (an imBack click, or an
 *    `Action.Submit` whose data is text, is text the channel sends for the user): that button's id.
 */
export function buttonClickOf(activity: ActivityLike, offered: OfferedButtons | undefined): string | undefined {
  // Stryker disable next-line ArrayDeclaration: a string in the list has no value or label, so it matches no click
  const buttons = offered?.flat() ?? [];
  if (isAdaptiveCardAction(activity)) {
    const action = (activity.value as { action: Record<string, unknown> }).action;
    const clicked = adaptiveActionButton({ type: 'Action.Execute', ...action });
    if (clicked === undefined || clicked.id === '') return undefined;
    const byValue = buttons.find((b) => b.value === clicked.value);
    if (byValue !== undefined) return byValue.id;
    // Without a verb, the invoke carries the action's data plus the card's inputs, like a submit.
    const hasVerb = typeof action.verb === 'string' && action.verb !== '';
    return (!hasVerb && isObject(action.data) ? submittedButton(action.data, offered)?.id : undefined) ?? clicked.id;
  }
  if (isTaskFetch(activity)) return taskFetchButton(activity.value as Record<string, unknown>, offered)?.id;
  const text = typeof activity.text === 'string' ? activity.text : '';
  const value: unknown = activity.value;
  if (value !== undefined && value !== null) {
    if (isObject(value)) {
      const button = submittedButton(value, offered);
      if (button !== undefined) return button.id;
    }
    // Teams' messageBack sends its text and, as the value, whatever else the card's data held.
    const byText = text === '' ? undefined : buttons.find((b) => b.value === text);
    return byText?.id ?? stringify(value);
  }
  const channelData: unknown = activity.channelData;
  if (isObject(channelData) && (channelData.postBack === true || isObject(channelData.messageBack)) && text !== '') return text;
  if (text === '') return undefined;
  const match = buttons.find((b) => b.value === text) ?? buttons.find((b) => b.label === text);
  return match?.id;
}
