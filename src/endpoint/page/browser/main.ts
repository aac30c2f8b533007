/**
 * The page at `/`: conversations and users, a transcript, and analytics, read from the
 * endpoint's JSON read side and read again whenever its live stream says records arrived.
 *
 * Page URL parameters: `key` (one of the endpoint's API keys, needed when it listens beyond
 * loopback; sent as a bearer header), `images=remote` (load images from records). The chosen
 * conversation or user is kept in the URL's hash (`#conversation=ID`, `#user=ID`).
 */
import './style.css';
import type { IntentsResponse, TimeseriesResponse } from '../../types.js';
import type { ConversationsResponse, TranscriptResponse, UsersResponse } from '../../types.js';
import type { TrackingSummary, TranscriptEntry } from '../../types.js';
import { AnalyticsPanel } from './analytics.js';
import { ReadApi, ReadError, type LiveStatus } from './api.js';
import { ConversationList, type Selection } from './conversations.js';
import { el, replaceChildren } from './dom.js';
import { amount, count, plural } from './format.js';
import { TranscriptView } from './transcript.js';

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  refused: 'Live updates refused',
};

function selectionFromHash(): Selection | undefined {
  const hash = new URLSearchParams(location.hash.slice(1));
  const conversation = hash.get('conversation');
  if (conversation !== null) return { kind: 'conversation', id: conversation };
  const user = hash.get('user');
  return user !== null ? { kind: 'user', id: user } : undefined;
}

function describe(entries: readonly TranscriptEntry[]): string {
  const platforms = new Set<string>();
  const channels = new Set<string>();
  let messages = 0;
  for (const entry of entries) {
    platforms.add(entry.platform ?? 'scripted');
    if (entry.channel) channels.add(entry.channel);
    if (entry.direction !== 'event') messages++;
  }
  return [...platforms, ...channels, plural(messages, 'message'), plural(entries.length - messages, 'event')].join(' · ');
}

function kpi(label: string): { element: HTMLElement; value: HTMLElement } {
  const value = el('span', 'kpi-value', {}, '–');
  return { element: el('span', 'kpi', {}, value, el('span', 'kpi-label', {}, label)), value };
}

/** The whole page. */
class App {
  private readonly api: ReadApi;
  private readonly remoteImages: boolean;
  private readonly list: ConversationList;
  private readonly transcript: TranscriptView;
  private readonly analytics: AnalyticsPanel;
  private readonly banner = el('p', 'banner', { role: 'alert', hidden: true });
  private readonly live = el('span', 'live', { 'data-status': 'connecting' }, LIVE_TEXT.connecting);
  private readonly kpis = { records: kpi('records'), users: kpi('users'), conversations: kpi('conversations'), revenue: kpi('revenue') };
  private readonly title = el('h2', '', {}, 'Transcript');
  private readonly subtitle = el('p', 'transcript-meta');
  private readonly imageToggle = el('button', 'link-button', { type: 'button', hidden: true });
  private selection = selectionFromHash();
  private loadedRecords = -1;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(root: HTMLElement, params: URLSearchParams) {
    this.api = new ReadApi(params.get('key'));
    this.remoteImages = params.get('images') === 'remote';
    this.list = new ConversationList((selection) => this.select(selection), () => this.refresh());
    this.transcript = new TranscriptView(this.api, { remoteImages: this.remoteImages });
    this.analytics = new AnalyticsPanel(() => this.refresh());
    this.imageToggle.textContent = this.remoteImages ? 'Hide images' : 'Load images';
    this.imageToggle.addEventListener('click', () => {
      const url = new URL(location.href);
      if (this.remoteImages) url.searchParams.delete('images');
      else url.searchParams.set('images', 'remote');
      location.assign(url.href);
    });
    const k = this.kpis;
    replaceChildren(root,
      el('header', 'topbar', {},
        el('h1', '', {}, 'Conversation analytics'),
        el('div', 'kpis', {}, k.records.element, k.users.element, k.conversations.element, k.revenue.element),
        this.live),
      this.banner,
      el('main', 'workspace', {},
        this.list.element,
        el('section', 'panel transcript-panel', { 'aria-label': 'Transcript' },
          el('header', 'transcript-head', {}, el('div', '', {}, this.title, this.subtitle), this.imageToggle),
          el('div', 'scroll', {}, this.transcript.element))),
      this.analytics.element,
    );
    addEventListener('hashchange', () => {
      this.selection = selectionFromHash();
      this.refresh();
    });
  }

  /** Loads everything, then follows the live stream. */
  start(): void {
    this.refresh();
    this.api.follow((event) => {
      if (event.records !== this.loadedRecords) this.refresh();
    }, (status) => {
      this.live.dataset.status = status;
      this.live.textContent = LIVE_TEXT[status];
    });
  }

  private select(selection: Selection): void {
    this.selection = selection;
    history.replaceState(null, '', `#${new URLSearchParams({ [selection.kind]: selection.id })}`);
    this.refresh();
  }

  /** Reads everything again; a call while a read is running makes it run once more afterwards. */
  refresh(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.load();
          this.banner.hidden = true;
        } catch (error) {
          this.banner.textContent = error instanceof ReadError ? `Cannot read from the endpoint: ${error.message}` : `Something went wrong: ${(error as Error).message}`;
          this.banner.hidden = false;
        }
      } while (this.again);
      this.running = undefined;
    })();
  }

  private async load(): Promise<void> {
    const { filters, kind } = this.list;
    const [summary, listed, series, intents] = await Promise.all([
      this.api.get<TrackingSummary>('api/summary'),
      kind === 'conversation'
        ? this.api.get<ConversationsResponse>('api/conversations', { ...filters, limit: 200 })
        : this.api.get<UsersResponse>('api/users', { ...filters, limit: 200 }),
      this.api.get<TimeseriesResponse>('api/timeseries', { bucket: this.analytics.bucketChoice, limit: 60 }),
      this.api.get<IntentsResponse>('api/intents', { limit: 8 }),
    ]);
    this.loadedRecords = summary.records;
    this.showSummary(summary);
    this.list.setChoices(Object.keys(summary.byPlatform).sort(), Object.keys(summary.byIntent).sort());

    const items = 'conversations' in listed ? listed.conversations : listed.users;
    // Until one is chosen, show the most recently active one of the list.
    const first = items[0];
    const firstId = first === undefined ? undefined : 'conversationId' in first ? first.conversationId : first.userId;
    const subject: Selection | undefined = this.selection ?? (firstId === undefined ? undefined : { kind, id: firstId });
    this.list.show(items, listed.total, subject);
    this.analytics.show(series, intents);
    await this.showTranscript(subject);
  }

  private showSummary(summary: TrackingSummary): void {
    this.kpis.records.value.textContent = count(summary.records);
    this.kpis.records.element.dataset.records = String(summary.records);
    this.kpis.users.value.textContent = count(summary.users);
    this.kpis.conversations.value.textContent = count(summary.conversations);
    this.kpis.revenue.value.textContent = amount(summary.revenue.total);
  }

  private async showTranscript(subject: Selection | undefined): Promise<void> {
    if (!subject) {
      this.title.textContent = 'Transcript';
      this.subtitle.textContent = '';
      this.imageToggle.hidden = true;
      this.transcript.clear('Choose a conversation or a user.');
      return;
    }
    this.title.textContent = `${subject.kind === 'conversation' ? 'Conversation' : 'User'} ${subject.id}`;
    let entries: TranscriptEntry[];
    try {
      entries = (await this.api.get<TranscriptResponse>('api/transcript', { [subject.kind]: subject.id })).entries;
    } catch (error) {
      if (!(error instanceof ReadError) || error.status !== 404) throw error;
      this.subtitle.textContent = '';
      this.transcript.clear(`Nothing recorded for this ${subject.kind} yet.`);
      return;
    }
    this.subtitle.textContent = describe(entries);
    this.imageToggle.hidden = !entries.some((entry) => entry.images !== undefined);
    this.transcript.show(`${subject.kind}:${subject.id}`, entries);
  }
}

const root = document.getElementById('app');
if (root) new App(root, new URLSearchParams(location.search)).start();
