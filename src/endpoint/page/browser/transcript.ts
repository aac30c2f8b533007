/// <reference lib="dom" />
/**
 * A transcript as chat bubbles: the user's messages on the left, the bot's on the right, events
 * in between. Intents are tags with their inputs; buttons are chips, the clicked one marked;
 * images are thumbnails; a toggle shows the record's `platformJson`. New entries are appended
 * without redrawing the rest.
 */
import type { RecordResponse } from '../../analytics-api.js';
import type { EntryButton, EntryIntent, TranscriptEntry } from '../../types.js';
import type { ReadApi } from './api.js';
import { el, replaceChildren, webUrl } from './dom.js';
import { amount, clockTime } from './format.js';

/** Whether images from records may be loaded (the page was opened with `?images=remote`). */
export interface TranscriptOptions {
  remoteImages: boolean;
}

const EVENT_NAMES: Record<string, string> = {
  revenueEvent: 'Revenue',
  customEvent: 'Event',
  shareEvent: 'Share',
  pageLaunchEvent: 'Page launch',
  referralEvent: 'Referral',
};

function intentTags(intent: EntryIntent): HTMLElement {
  const warn = intent.name === 'NotHandled';
  return el('div', 'intent', {},
    el('span', `tag intent-name${warn ? ' warn' : ''}`, { title: 'intent' }, intent.name),
    ...intent.inputs.map((input) => el('span', 'tag intent-input', { title: 'intent input' }, el('span', 'input-name', {}, input.name), el('span', 'input-value', {}, input.value))),
  );
}

/** The last segment of a URL's path, to name an image that is not loaded. */
function fileName(url: string): string {
  try {
    const name = new URL(url).pathname.split('/').filter(Boolean).pop();
    return name ? decodeURIComponent(name) : url;
  } catch {
    return url.slice(0, 40);
  }
}

function placeholder(url: string): HTMLElement {
  const href = webUrl(url);
  const tile = href
    ? el('a', 'thumb placeholder', { href, target: '_blank', rel: 'noopener noreferrer', title: url })
    : el('span', 'thumb placeholder', { title: url });
  tile.append(el('span', 'thumb-icon', { 'aria-hidden': 'true' }), el('span', 'thumb-name', {}, fileName(url)));
  return tile;
}

function thumbnail(url: string, options: TranscriptOptions): HTMLElement {
  const loadable = url.startsWith('data:image/') || (options.remoteImages && url.startsWith('https://'));
  if (!loadable) return placeholder(url);
  const image = el('img', 'thumb', { src: url, alt: fileName(url), title: url, loading: 'lazy', referrerpolicy: 'no-referrer' });
  image.addEventListener('error', () => image.replaceWith(placeholder(url)), { once: true });
  return image;
}

/** The transcript pane. */
export class TranscriptView {
  readonly element = el('div', 'bubbles', { role: 'log', 'aria-live': 'polite' });
  private subject = '';
  private shown = 0;
  /** The latest rendered chip of each offered button id, to mark it when it is clicked. */
  private readonly buttons = new Map<string, HTMLElement>();

  constructor(private readonly api: ReadApi, private readonly options: TranscriptOptions) {}

  /** Shows `entries` of `subject` (e.g. `user:ann`): appends what is new when the subject is the same, else starts over. */
  show(subject: string, entries: readonly TranscriptEntry[]): void {
    const pane = this.element.parentElement;
    const atBottom = !pane || pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
    if (subject !== this.subject || entries.length < this.shown) {
      this.clear();
      this.subject = subject;
    }
    for (const entry of entries.slice(this.shown)) this.element.appendChild(this.entry(entry));
    this.shown = entries.length;
    if (pane && atBottom) pane.scrollTop = pane.scrollHeight;
  }

  /** Empties the pane, showing `message` when given. */
  clear(message?: string): void {
    replaceChildren(this.element, message ? el('p', 'empty', {}, message) : null);
    this.subject = '';
    this.shown = 0;
    this.buttons.clear();
  }

  private entry(entry: TranscriptEntry): HTMLElement {
    if (entry.direction === 'event') return this.event(entry);
    const bubble = el('div', 'bubble');
    if (entry.text !== undefined && entry.text !== '') bubble.appendChild(el('p', 'text', {}, entry.text));
    if (entry.images) bubble.appendChild(el('div', 'images', {}, ...entry.images.map((url) => thumbnail(url, this.options))));
    if (entry.buttons) bubble.appendChild(this.buttonChips(entry.buttons));
    if (bubble.childElementCount === 0) bubble.appendChild(el('p', 'text muted', {}, '(no text)'));

    const who = entry.direction === 'incoming' ? entry.userId || 'user' : 'bot';
    const json = this.jsonToggle(entry.seq);
    const row = el('div', `entry ${entry.direction}`, { 'data-seq': entry.seq },
      el('div', 'meta', {}, el('span', 'who', {}, who), el('time', '', { datetime: entry.time }, clockTime(entry.time)), json.button),
      bubble,
    );
    if (entry.clickedButton !== undefined) row.appendChild(this.clicked(entry.clickedButton));
    if (entry.intent) row.appendChild(intentTags(entry.intent));
    row.appendChild(json.box);
    return row;
  }

  private buttonChips(buttons: readonly EntryButton[]): HTMLElement {
    return el('div', 'buttons', {}, ...buttons.map((button) => {
      const chip = el('span', 'button', { 'data-button-id': button.id, title: button.value && button.value !== button.label ? button.value : undefined }, button.label || button.value || button.id);
      if (button.id !== '') this.buttons.set(button.id, chip);
      return chip;
    }));
  }

  private clicked(buttonId: string): HTMLElement {
    const chip = this.buttons.get(buttonId);
    chip?.classList.add('clicked');
    const label = chip?.textContent || buttonId;
    return el('div', 'clicked-note', {}, 'Clicked ', el('span', 'clicked-label', {}, label));
  }

  private event(entry: TranscriptEntry): HTMLElement {
    const event = entry.event;
    const type = event?.type ?? '';
    const pill = el('div', `event-pill ${type === 'revenueEvent' ? 'revenue' : ''}`.trim(), {},
      el('span', 'event-type', {}, EVENT_NAMES[type] ?? type),
      event?.name ? el('span', 'event-name', {}, event.name) : null,
      event?.amount !== undefined ? el('span', 'event-amount', {}, amount(event.amount)) : null,
      event?.referenceNumber ? el('span', 'event-ref', {}, event.referenceNumber) : null,
      el('time', '', { datetime: entry.time }, clockTime(entry.time)),
    );
    const json = this.jsonToggle(entry.seq);
    pill.appendChild(json.button);
    return el('div', 'entry event', { 'data-seq': entry.seq }, pill, json.box);
  }

  /** A toggle that fetches the stored record once and shows its `platformJson` (or its body, when it has none). */
  private jsonToggle(seq: number): { button: HTMLElement; box: HTMLElement } {
    const button = el('button', 'json-toggle', { type: 'button', 'aria-expanded': 'false', title: 'Show the record\'s platformJson' }, 'platformJson');
    const box = el('pre', 'json', { hidden: true });
    let loaded = false;
    button.addEventListener('click', async () => {
      const open = box.hidden;
      box.hidden = !open;
      button.setAttribute('aria-expanded', String(open));
      if (!open || loaded) return;
      loaded = true;
      box.textContent = 'Loading…';
      try {
        const { record } = await this.api.get<RecordResponse>('api/record', { seq });
        const body = record.body as { platformJson?: unknown } | null;
        const hasPlatformJson = typeof body === 'object' && body !== null && body.platformJson !== undefined;
        box.dataset.shows = hasPlatformJson ? 'platformJson' : 'body';
        box.textContent = `${hasPlatformJson ? '' : '// no platformJson; the record body:\n'}${JSON.stringify(hasPlatformJson ? body.platformJson : record.body, null, 2)}`;
      } catch (error) {
        loaded = false;
        box.textContent = (error as Error).message;
      }
    });
    return { button, box };
  }
}
