/**
 * The list of conversations or users, most recently active first, with their platform, channel,
 * message count and last activity, filtered by platform and intent. Choosing one selects it.
 */
import type { ConversationSummary, UserSummary } from '../../types.js';
import { el, replaceChildren } from './dom.js';
import { lastSeen, plural } from './format.js';

/** Which list is shown. */
export type ListKind = 'conversation' | 'user';

/** The chosen conversation or user. */
export interface Selection {
  kind: ListKind;
  id: string;
}

/** The list's filters; `''` means all. */
export interface Filters {
  platform: string;
  intent: string;
}

/** One row of either list, in the same shape. */
interface Row {
  id: string;
  detail: string;
  platform: string | null;
  channel: string | null;
  messages: number;
  events: number;
  lastActivity: string;
}

function fromConversation(c: ConversationSummary): Row {
  const users = c.userIds.length === 1 ? `user ${c.userIds[0]}` : plural(c.userIds.length, 'user');
  return { id: c.conversationId, detail: users, platform: c.platform, channel: c.channel, messages: c.messages, events: c.events, lastActivity: c.lastActivity };
}

function fromUser(u: UserSummary): Row {
  return { id: u.userId, detail: plural(u.conversations, 'conversation'), platform: u.platform, channel: u.channel, messages: u.messages, events: u.events, lastActivity: u.lastActivity };
}

function options(select: HTMLSelectElement, all: string, values: readonly string[], current: string): void {
  replaceChildren(select, el('option', '', { value: '' }, all), ...values.map((value) => el('option', '', { value }, value)));
  select.value = values.includes(current) ? current : '';
}

/** The left-hand panel: tabs, filters and the list. */
export class ConversationList {
  readonly element: HTMLElement;
  private readonly list = el('ul', 'list', { 'aria-label': 'Conversations' });
  private readonly platform = el('select', '', { 'aria-label': 'Platform', name: 'platform' });
  private readonly intent = el('select', '', { 'aria-label': 'Intent', name: 'intent' });
  private readonly tabs: Record<ListKind, HTMLButtonElement> = {
    conversation: el('button', 'tab', { type: 'button', role: 'tab', 'data-kind': 'conversation' }, 'Conversations'),
    user: el('button', 'tab', { type: 'button', role: 'tab', 'data-kind': 'user' }, 'Users'),
  };
  private readonly totals = el('p', 'list-total');
  kind: ListKind = 'conversation';

  /**
   * @param onSelect Called when a row is chosen.
   * @param onChange Called when the tab or a filter changes (the list must be read again).
   */
  constructor(private readonly onSelect: (selection: Selection) => void, onChange: () => void) {
    for (const kind of ['conversation', 'user'] as const) {
      this.tabs[kind].addEventListener('click', () => {
        if (this.kind === kind) return;
        this.kind = kind;
        this.markTab();
        onChange();
      });
    }
    this.platform.addEventListener('change', () => onChange());
    this.intent.addEventListener('change', () => onChange());
    this.markTab();
    this.element = el('section', 'panel browse', { 'aria-label': 'Conversations and users' },
      el('div', 'tabs', { role: 'tablist' }, this.tabs.conversation, this.tabs.user),
      el('div', 'filters', {}, el('label', '', {}, 'Platform', this.platform), el('label', '', {}, 'Intent', this.intent)),
      this.totals,
      this.list,
    );
  }

  private markTab(): void {
    for (const kind of ['conversation', 'user'] as const) this.tabs[kind].setAttribute('aria-selected', String(this.kind === kind));
    this.list.setAttribute('aria-label', this.kind === 'conversation' ? 'Conversations' : 'Users');
  }

  /** The filters as chosen. */
  get filters(): Filters {
    return { platform: this.platform.value, intent: this.intent.value };
  }

  /** Fills the filter choices with the platforms and intents seen, keeping what is chosen. */
  setChoices(platforms: readonly string[], intents: readonly string[]): void {
    options(this.platform, 'All platforms', platforms, this.platform.value);
    options(this.intent, 'All intents', intents, this.intent.value);
  }

  /** Shows conversations or users (`total` before `limit`), marking `selected`. */
  show(items: readonly ConversationSummary[] | readonly UserSummary[], total: number, selected: Selection | undefined): void {
    const rows = this.kind === 'conversation'
      ? (items as readonly ConversationSummary[]).map(fromConversation)
      : (items as readonly UserSummary[]).map(fromUser);
    const filtered = this.filters.platform !== '' || this.filters.intent !== '';
    this.totals.textContent = `${plural(total, this.kind === 'conversation' ? 'conversation' : 'user')}${filtered ? ` match${total === 1 ? 'es' : ''} the filters` : ''}`;
    if (rows.length === 0) {
      replaceChildren(this.list, el('li', 'empty', {}, filtered ? 'Nothing matches these filters.' : 'No records yet. Point a bot at this endpoint.'));
      return;
    }
    replaceChildren(this.list, ...rows.map((row) => this.row(row, selected?.kind === this.kind && selected.id === row.id)));
  }

  private row(row: Row, selected: boolean): HTMLElement {
    const button = el('button', 'row', { type: 'button', 'aria-current': selected ? 'true' : undefined, 'data-id': row.id },
      el('span', 'row-head', {}, el('span', 'row-id', { title: row.id }, row.id || '(no user id)'), el('time', 'row-time', { datetime: row.lastActivity }, lastSeen(row.lastActivity))),
      el('span', 'row-meta', {},
        el('span', 'chip platform', { title: 'platform' }, row.platform ?? 'scripted'),
        row.channel !== null ? el('span', 'chip channel', { title: 'channel' }, row.channel) : null,
        el('span', 'row-count', {}, plural(row.messages, 'message')),
        row.events > 0 ? el('span', 'row-count', {}, plural(row.events, 'event')) : null,
      ),
      el('span', 'row-detail', {}, row.detail),
    );
    button.addEventListener('click', () => this.onSelect({ kind: this.kind, id: row.id }));
    return el('li', '', {}, button);
  }
}
