/**
 * What a user sees on a card: its images (and the media of video, audio and animation cards), its
 * buttons, and the text they read first. Reads every Bot Framework card (hero, thumbnail, receipt,
 * sign-in, OAuth, animation, video, audio) and Adaptive Cards of any version, however nested
 * (containers, columns, tables, `ActionSet`, `Action.ShowCard` bodies, `selectAction`s).
 */
import type { Button } from '../protocol/index.js';
import { fieldOf as field, isObject, stringify } from './values.js';

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

/** A card action (Bot Framework `CardAction`: imBack, postBack, messageBack, openUrl, signin…) as a button. A field that cannot be read counts as missing. */
export function buttonOf(action: Obj): Button {
  const value = stringify(field(action, 'value'));
  const label = [field(action, 'title'), field(action, 'displayText'), field(action, 'text')].find((t): t is string => typeof t === 'string' && t !== '') ?? value;
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
  // Empty data is no data: the button is known by its title.
  if (teams === undefined) return Object.keys(data).length > 0 ? stringify(data) : '';
  const { msteams: _teams, ...rest } = data;
  return Object.keys(rest).length > 0 ? stringify(rest) : '';
}

/** An Adaptive Card action as a button: Submit → its data, Execute → its verb (else data), OpenUrl → its URL. Other actions are not buttons. */
export function adaptiveActionButton(action: Obj): Button | undefined {
  let value: string;
  switch (field(action, 'type')) {
    case 'Action.Submit':
      value = submitValue(field(action, 'data'));
      break;
    case 'Action.Execute': {
      const verb = field(action, 'verb');
      value = typeof verb === 'string' && verb !== '' ? verb : submitValue(field(action, 'data'));
      break;
    }
    case 'Action.OpenUrl':
      value = stringify(field(action, 'url'));
      break;
    default:
      return undefined;
  }
  const title = field(action, 'title');
  const label = typeof title === 'string' && title !== '' ? title : value;
  return { id: value !== '' ? value : label, label, value };
}

/** The URL of a `backgroundImage`: a string in Adaptive Cards 1.0, `{ url }` from 1.2. */
function backgroundUrl(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const url = isObject(value) ? field(value, 'url') : undefined;
  return typeof url === 'string' ? url : undefined;
}

/** The text of a `RichTextBlock`'s inlines (strings and `TextRun`s). */
function inlineText(inlines: unknown[]): string {
  return inlines.map((inline) => (typeof inline === 'string' ? inline : isObject(inline) && typeof field(inline, 'text') === 'string' ? (field(inline, 'text') as string) : '')).join('');
}

/**
 * Reads an Adaptive Card: images, buttons and the first text, in document order. Every field is
 * read on its own: a field that is missing, of the wrong type or whose getter throws is skipped,
 * and the rest of the card is still read.
 */
function readAdaptiveCard(card: Obj, view: CardView): void {
  let budget = MAX_ELEMENTS;
  const visit = (node: unknown, depth: number, isCardRoot = false): void => {
    if (!isObject(node) || depth > MAX_DEPTH || --budget < 0) return;
    try {
      readElement(node, depth, isCardRoot);
    } catch {
      // A hostile element (a proxy that throws, say): skipped, its siblings are still read.
    }
  };
  const readElement = (node: Obj, depth: number, isCardRoot: boolean): void => {
    const type = isCardRoot ? 'AdaptiveCard' : field(node, 'type');
    if (typeof type === 'string' && type.startsWith('Action.')) {
      const button = adaptiveActionButton(node);
      if (button !== undefined) view.buttons.push(button);
      if (type === 'Action.ShowCard') visit(field(node, 'card'), depth + 1, true);
      return;
    }
    // Behind the content: the background of a card, a Container or a Column.
    const background = backgroundUrl(field(node, 'backgroundImage'));
    if (background !== undefined) view.imageUrls.push(background);
    switch (type) {
      case 'Image': {
        const url = field(node, 'url');
        if (typeof url === 'string') view.imageUrls.push(url);
        break;
      }
      case 'Media': {
        const poster = field(node, 'poster');
        if (typeof poster === 'string') view.imageUrls.push(poster);
        for (const source of list(field(node, 'sources'))) {
          const url = isObject(source) ? field(source, 'url') : undefined;
          if (typeof url === 'string') view.imageUrls.push(url);
        }
        break;
      }
      case 'TextBlock': {
        const text = field(node, 'text');
        if (view.text === undefined && typeof text === 'string' && text.trim() !== '') view.text = text;
        break;
      }
      case 'RichTextBlock': {
        const inlines = list(field(node, 'inlines'));
        const text = inlineText(inlines);
        if (view.text === undefined && text.trim() !== '') view.text = text;
        // A TextRun can be a link (its selectAction).
        for (const inline of inlines) if (isObject(inline)) visit(field(inline, 'selectAction'), depth + 1);
        break;
      }
      default:
        break;
    }
    // Children, in document order: a card's body, a container's items, columns, table cells, image
    // sets, Teams carousel pages, then actions.
    for (const child of list(field(node, 'body'))) visit(child, depth + 1);
    for (const child of list(field(node, 'items'))) visit(child, depth + 1);
    for (const child of list(field(node, 'columns'))) visit(child, depth + 1);
    for (const image of list(field(node, 'images'))) visit(isObject(image) && field(image, 'type') === undefined ? { type: 'Image', url: field(image, 'url') } : image, depth + 1);
    for (const row of list(field(node, 'rows'))) for (const cell of list(isObject(row) ? field(row, 'cells') : undefined)) visit(cell, depth + 1);
    for (const page of list(field(node, 'pages'))) visit(page, depth + 1);
    for (const action of list(field(node, 'actions'))) visit(action, depth + 1);
    visit(field(node, 'selectAction'), depth + 1);
    visit(field(node, 'inlineAction'), depth + 1);
    if (isCardRoot) {
      // Adaptive Cards 1.4 single sign-on: the buttons shown when the token exchange fails.
      const authentication = field(node, 'authentication');
      for (const action of list(isObject(authentication) ? field(authentication, 'buttons') : undefined)) {
        if (isObject(action)) view.buttons.push(buttonOf(action));
      }
    }
  };
  visit(card, 0, true);
}

/** Reads a Bot Framework card (hero, thumbnail, receipt, sign-in, OAuth, media cards); each field on its own. */
function readBotFrameworkCard(content: Obj, view: CardView): void {
  const firstText = [field(content, 'title'), field(content, 'subtitle'), field(content, 'text')].find((t): t is string => typeof t === 'string' && t.trim() !== '');
  if (firstText !== undefined) view.text = firstText;
  const urlOf = (holder: unknown): void => {
    const url = isObject(holder) ? field(holder, 'url') : undefined;
    if (typeof url === 'string') view.imageUrls.push(url);
  };
  for (const image of list(field(content, 'images'))) urlOf(image);
  urlOf(field(content, 'image'));
  for (const media of list(field(content, 'media'))) urlOf(media);
  for (const item of list(field(content, 'items'))) if (isObject(item)) urlOf(field(item, 'image'));
  for (const action of list(field(content, 'buttons'))) {
    if (!isObject(action)) continue;
    try {
      view.buttons.push(buttonOf(action));
    } catch {
      // A button whose fields throw when read: left out.
    }
  }
}

/** Card content larger than this, given as a JSON string, is not parsed. */
const MAX_CARD_JSON = 256 * 1024;

/**
 * The content of a card attachment: `content` as an object, or parsed when a bot gave it as a
 * JSON string (some Teams bots send the card's JSON text). `undefined` for an attachment that is
 * not a card, or whose content is neither.
 */
export function cardContent(attachment: Obj): Obj | undefined {
  const type = field(attachment, 'contentType');
  if (type !== ADAPTIVE_CARD && !BOT_FRAMEWORK_CARDS.has(type as string)) return undefined;
  const content = field(attachment, 'content');
  if (isObject(content)) return content;
  if (typeof content !== 'string' || content.length > MAX_CARD_JSON || !content.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(content);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** True for an attachment this module reads as a card. */
export function isCard(attachment: Obj): boolean {
  return cardContent(attachment) !== undefined;
}

/** What a card attachment shows; `undefined` for an attachment that is not a card. Never throws on odd content. */
export function readCard(attachment: Obj): CardView | undefined {
  try {
    const content = cardContent(attachment);
    if (content === undefined) return undefined;
    const view: CardView = { imageUrls: [], buttons: [], text: undefined };
    if (field(attachment, 'contentType') === ADAPTIVE_CARD) readAdaptiveCard(content, view);
    else readBotFrameworkCard(content, view);
    return view;
  } catch {
    return undefined;
  }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
