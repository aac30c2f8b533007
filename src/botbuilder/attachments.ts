/**
 * What a user sees in an activity besides its text: images (image attachments and card images)
 * and buttons (card buttons and suggested actions).
 */
import type { Activity } from 'botbuilder';
import type { Button, Image } from '../spec/index.js';
import { redactUrlSecrets } from './platform-json.js';
import { isObject, stringify } from './values.js';

/** Content type of a hero card; its images and buttons are read. */
export const HERO_CARD = 'application/vnd.microsoft.card.hero';
/** Content type of a thumbnail card; its images and buttons are read. */
export const THUMBNAIL_CARD = 'application/vnd.microsoft.card.thumbnail';

function attachmentsOf(activity: Partial<Activity>): Record<string, any>[] {
  return Array.isArray(activity.attachments) ? activity.attachments.filter(isObject) : [];
}

/** A hero or thumbnail card's content, or `undefined` for any other attachment. */
export function cardContent(attachment: Record<string, any>): Record<string, any> | undefined {
  const type = attachment.contentType;
  return (type === HERO_CARD || type === THUMBNAIL_CARD) && isObject(attachment.content) ? attachment.content : undefined;
}

/** An image URL worth recording: a string that is not an inline `data:` URL (those can be megabytes), secrets masked. */
function imageUrl(url: unknown): string | undefined {
  return typeof url === 'string' && url !== '' && !/^data:/i.test(url) ? redactUrlSecrets(url) : undefined;
}

/**
 * Images of an activity, in order: attachments whose `contentType` is `image/*` (their
 * `contentUrl`), then the `images[].url` of hero and thumbnail cards. Inline `data:` URLs are left out.
 */
export function imagesOf(activity: Partial<Activity>): Image[] {
  const images: Image[] = [];
  for (const attachment of attachmentsOf(activity)) {
    if (typeof attachment.contentType === 'string' && /^image\//i.test(attachment.contentType)) {
      const url = imageUrl(attachment.contentUrl);
      if (url !== undefined) images.push({ url });
    }
    const card = cardContent(attachment);
    if (card !== undefined && Array.isArray(card.images)) {
      for (const image of card.images) {
        const url = isObject(image) ? imageUrl(image.url) : undefined;
        if (url !== undefined) images.push({ url });
      }
    }
  }
  return images;
}

/**
 * A card action as a spec button. `value` is the action's value as a string (objects as JSON);
 * `label` its title (else its displayText, text or value); `id` is the value, or the label when
 * there is no value: the value is what comes back when the user clicks, so a click names the
 * button it came from (see `buttonClickOf`).
 */
export function buttonOf(action: Record<string, any>): Button {
  const value = stringify(action.value);
  const label = [action.title, action.displayText, action.text].find((t) => typeof t === 'string' && t !== '') ?? value;
  return { id: value !== '' ? value : label, label, value };
}

/** Buttons of an activity, in order: those of hero and thumbnail cards, then `suggestedActions.actions`. */
export function buttonsOf(activity: Partial<Activity>): Button[] {
  const buttons: Button[] = [];
  for (const attachment of attachmentsOf(activity)) {
    const card = cardContent(attachment);
    if (card !== undefined && Array.isArray(card.buttons)) {
      for (const action of card.buttons) if (isObject(action)) buttons.push(buttonOf(action));
    }
  }
  const suggested = activity.suggestedActions?.actions;
  if (Array.isArray(suggested)) {
    for (const action of suggested) if (isObject(action)) buttons.push(buttonOf(action));
  }
  return buttons;
}

/**
 * The id of the button an incoming message is a click on, or `undefined` when it is not a click:
 * 1. the activity has a `value` (postBack/messageBack with an object value, Adaptive Card submit): its value as a string;
 * 2. `channelData.postBack` or `channelData.messageBack` is set (Web Chat's postBack/messageBack): its text;
 * 3. its text equals the value (else the label) of a button the bot offered last in this
 *    conversation (`offered`; an imBack click is text the channel sends for the user): that button's id.
 */
export function buttonClickOf(activity: Partial<Activity>, offered: readonly Button[] | undefined): string | undefined {
  if (activity.value !== undefined && activity.value !== null) return stringify(activity.value);
  const text = typeof activity.text === 'string' ? activity.text : '';
  const channelData: unknown = activity.channelData;
  if (isObject(channelData) && (channelData.postBack === true || isObject(channelData.messageBack)) && text !== '') return text;
  if (offered === undefined || text === '') return undefined;
  const match = offered.find((b) => b.value === text) ?? offered.find((b) => b.label === text);
  return match?.id;
}
