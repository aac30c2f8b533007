/**
 * What a user sees on a card: its images (and the media of video, audio and animation cards), its
 * buttons, and the text they read first. Reads every Bot Framework card (hero, thumbnail, receipt,
 * sign-in, OAuth, animation, video, audio) and Adaptive Cards of any version, however nested
 * (containers, columns, tables, `ActionSet`, `Action.ShowCard` bodies, `selectAction`s).
 */
import type { Button } from '../protocol/index.js';
import { isObject, stringify } from './values.js';

export const HERO_CARD = 'application/vnd.microsoft.card.hero';
export const THUMBNAIL_CARD = 'application/vnd.microsoft.card.thumbnail';
export const RECEIPT_CARD = 'application/vnd.microsoft.card.receipt';
export const SIGNIN_CARD = 'application/vnd.microsoft.card.signin';
export const OAUTH_CARD = 'application/vnd.microsoft.card.oauth';
export const ANIMATION_CARD = 'application/vnd.microsoft.card.animation';
export const VIDEO_CARD = 'application/vnd.microsoft.card.video';
export const AUDIO_CARD = 'application/vnd.microsoft.card.audio';
export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

/** Bot Framework cards whose content has `title`, `images`/`image`/`media` and `buttons`. */
const BOT_FRAMEWORK_CARDS = new Set([HERO_CARD, THUMBNAIL_CARD, RECEIPT_CARD, SIGNIN_CARD, OAUTH_CARD, ANIMATION_CARD, VIDEO_CARD, AUDIO_CARD]);

/** Adaptive Card elements visited at most per card: a hostile card cannot make the walk costly. */
const MAX_ELEMENTS = 2_000;
/** How deep an Adaptive Card is read. */
const MAX_DEPTH = 32;

type Obj = Record<string, any>;

/** What a card shows: image URLs (raw, not yet masked), buttons, and the text a user reads first. */
export interface CardView {
  imageUrls: string[];
  buttons: Button[];
  text: string | undefined;
}

/** A card action (Bot Framework `CardAction`: imBack, postBack, messageBack, openUrl, signin…) as a button. */
export function buttonOf(action: Obj): Button {
  const value = stringify(action.value);
  const label = [action.title, action.displayText, action.text].find((t) => typeof t === 'string' && t !== '') ?? value;
  return { id: value !== '' ? value : label, label, value };
}

/** The value that comes back when the user clicks an Adaptive Card submit: Teams' `msteams` imBack/messageBack value, else the data (without `msteams`). */
function submitValue(data: unknown): string {
  if (!isObject(data)) return stringify(data);
  const teams = data.msteams;
  if (isObject(teams)) {
    if (teams.type === 'imBack') return stringify(teams.value);
    if (teams.type === 'messageBack') return stringify(teams.value ?? teams.text);
    if (teams.value !== undefined) return stringify(teams.value);
  }
  if (teams === undefined) return stringify(data);
  const { msteams: _teams, ...rest } = data;
  return Object.keys(rest).length > 0 ? stringify(rest) : '';
}

/** An Adaptive Card action as a button: Submit → its data, Execute → its verb (else data), OpenUrl → its URL. Other actions are not buttons. */
export function adaptiveActionButton(action: Obj): Button | undefined {
  let value: string;
  switch (action.type) {
    case 'Action.Submit':
      value = submitValue(action.data);
      break;
    case 'Action.Execute':
      value = typeof action.verb === 'string' && action.verb !== '' ? action.verb : submitValue(action.data);
      break;
    case 'Action.OpenUrl':
      value = stringify(action.url);
      break;
    default:
      return undefined;
  }
  const label = typeof action.title === 'string' && action.title !== '' ? action.title : value;
  return { id: value !== '' ? value : label, label, value };
}

/** Reads an Adaptive Card: images, buttons and the first text, in document order. */
function readAdaptiveCard(card: Obj, view: CardView): void {
  let budget = MAX_ELEMENTS;
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH || --budget < 0) return;
    const type = node.type;
    if (typeof type === 'string' && type.startsWith('Action.')) {
      const button = adaptiveActionButton(node);
      if (button !== undefined) view.buttons.push(button);
      if (type === 'Action.ShowCard') visit(node.card, depth + 1);
      return;
    }
    switch (type) {
      case 'Image':
        if (typeof node.url === 'string') view.imageUrls.push(node.url);
        break;
      case 'Media':
        if (typeof node.poster === 'string') view.imageUrls.push(node.poster);
        for (const source of list(node.sources)) if (isObject(source) && typeof source.url === 'string') view.imageUrls.push(source.url);
        break;
      case 'TextBlock':
        if (view.text === undefined && typeof node.text === 'string' && node.text.trim() !== '') view.text = node.text;
        break;
      case 'RichTextBlock': {
        const text = list(node.inlines).map((inline) => (typeof inline === 'string' ? inline : isObject(inline) && typeof inline.text === 'string' ? inline.text : '')).join('');
        if (view.text === undefined && text.trim() !== '') view.text = text;
        break;
      }
      default:
        break;
    }
    // Children, in document order: a card's body, a container's items, columns, table cells, image sets, then actions.
    for (const child of list(node.body)) visit(child, depth + 1);
    for (const child of list(node.items)) visit(child, depth + 1);
    for (const child of list(node.columns)) visit(child, depth + 1);
    for (const image of list(node.images)) visit(isObject(image) && image.type === undefined ? { ...image, type: 'Image' } : image, depth + 1);
    for (const row of list(node.rows)) for (const cell of list(isObject(row) ? row.cells : undefined)) visit(cell, depth + 1);
    for (const action of list(node.actions)) visit(action, depth + 1);
    if (isObject(node.selectAction)) visit(node.selectAction, depth + 1);
    if (isObject(node.inlineAction)) visit(node.inlineAction, depth + 1);
  };
  visit({ ...card, type: 'AdaptiveCard' }, 0);
}

/** Reads a Bot Framework card (hero, thumbnail, receipt, sign-in, OAuth, media cards). */
function readBotFrameworkCard(content: Obj, view: CardView): void {
  const firstText = [content.title, content.subtitle, content.text].find((t) => typeof t === 'string' && t.trim() !== '');
  if (firstText !== undefined) view.text = firstText;
  for (const image of list(content.images)) if (isObject(image) && typeof image.url === 'string') view.imageUrls.push(image.url);
  if (isObject(content.image) && typeof content.image.url === 'string') view.imageUrls.push(content.image.url);
  for (const media of list(content.media)) if (isObject(media) && typeof media.url === 'string') view.imageUrls.push(media.url);
  for (const item of list(content.items)) if (isObject(item) && isObject(item.image) && typeof item.image.url === 'string') view.imageUrls.push(item.image.url);
  for (const action of list(content.buttons)) if (isObject(action)) view.buttons.push(buttonOf(action));
}

/** True for an attachment this module reads as a card. */
export function isCard(attachment: Obj): boolean {
  return isObject(attachment.content) && (attachment.contentType === ADAPTIVE_CARD || BOT_FRAMEWORK_CARDS.has(attachment.contentType));
}

/** What a card attachment shows; `undefined` for an attachment that is not a card. Never throws on odd content. */
export function readCard(attachment: Obj): CardView | undefined {
  if (!isCard(attachment)) return undefined;
  const view: CardView = { imageUrls: [], buttons: [], text: undefined };
  if (attachment.contentType === ADAPTIVE_CARD) readAdaptiveCard(attachment.content, view);
  else readBotFrameworkCard(attachment.content, view);
  return view;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
