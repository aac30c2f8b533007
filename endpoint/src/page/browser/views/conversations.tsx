/**
 * Transcripts: the conversations or users (most recently active first, narrowed by the filter and
 * an intent), a search across transcripts by text and user, and the chosen transcript as chat
 * bubbles, with its exports. Side by side on a wide screen; on a phone the list is one screen and
 * the chosen transcript another, with a way back to the list (the browser's back button too).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  ConversationSummary, ConversationsResponse, IntentsResponse, SearchResponse, TranscriptEntry, TranscriptResponse, UsersResponse, UserSummary,
} from '../../../types.js';
import { Exports } from '../components.js';
import { lastSeen, plural } from '../format.js';
import { useMedia, usePage, useRead, type Read } from '../hooks.js';
import { apiFilter, filtered, type Selection } from '../state.js';
import { Transcript } from '../transcript.js';

/** One row of either list, in the same shape. */
interface Row {
  id: string;
  title: string;
  detail: string;
  platform: string | null;
  channel: string | null;
  messages: number;
  events: number;
  lastActivity: string;
}

function Chip({ kind, children }: { kind: string; children: string }) {
  return <span class={`chip ${kind}`} title={kind}>{children}</span>;
}

function ListRow({ row, kind, selected }: { row: Row; kind: Selection['kind']; selected: boolean }) {
  const { navigate } = usePage();
  return (
    <li>
      <button type="button" class="row" aria-current={selected ? 'true' : undefined} data-id={row.id}
        onClick={() => navigate({ selection: { kind, id: row.id }, at: undefined })}>
        <span class="row-head">
          <span class="row-id" title={row.id}>{row.title}</span>
          <time class="row-time" datetime={row.lastActivity}>{lastSeen(row.lastActivity)}</time>
        </span>
        <span class="row-meta">
          <Chip kind="platform">{row.platform ?? 'scripted'}</Chip>
          {row.channel !== null ? <Chip kind="channel">{row.channel}</Chip> : null}
          <span class="row-count">{plural(row.messages, 'message')}</span>
          {row.events > 0 ? <span class="row-count">{plural(row.events, 'event')}</span> : null}
        </span>
        <span class="row-detail">{row.detail}</span>
      </button>
    </li>
  );
}

function Results({ results, more }: { results: SearchResponse['results']; more: boolean }) {
  const { navigate, state } = usePage();
  if (results.length === 0) return <li class="empty">No message matches. Search looks for the text anywhere in what was said (any case), and for a user's id or name.</li>;
  return (
    <>
      {results.map((r) => (
        <li>
          <button type="button" class="row result" data-seq={r.seq} aria-current={state.at === r.seq ? 'true' : undefined}
            onClick={() => navigate({ selection: { kind: 'conversation', id: r.conversationId }, at: r.seq })}>
            <span class="row-head">
              <span class="row-id">{r.direction === 'incoming' ? r.userName || r.userId : `bot to ${r.userName || r.userId}`}</span>
              <time class="row-time" datetime={r.time}>{lastSeen(r.time)}</time>
            </span>
            <span class="result-text">{r.text ?? ''}</span>
            <span class="row-detail">conversation {r.conversationId}{r.intent ? ` · ${r.intent.name}` : ''}</span>
          </button>
        </li>
      ))}
      {more ? <li class="list-more">More messages match: narrow the search or the filter.</li> : null}
    </>
  );
}

function SearchForm() {
  const { state, navigate } = usePage();
  const [q, setQ] = useState(state.q);
  const [who, setWho] = useState(state.who);
  useEffect(() => {
    setQ(state.q);
    setWho(state.who);
  }, [state.q, state.who]);
  const active = state.q !== '' || state.who !== '';
  return (
    <form class="search" role="search" onSubmit={(event) => {
      event.preventDefault();
      navigate({ q: q.trim(), who: who.trim() });
    }}>
      <div class="field"><label for="search-q">Search transcripts</label><input id="search-q" type="search" name="q" value={q} placeholder="words in a message" onInput={(e) => setQ((e.target as HTMLInputElement).value)} /></div>
      <div class="field"><label for="search-who">User</label><input id="search-who" type="search" name="who" value={who} placeholder="id or name" onInput={(e) => setWho((e.target as HTMLInputElement).value)} /></div>
      <div class="search-actions">
        <button type="submit">Search</button>
        {active ? <button type="button" class="link-button" onClick={() => navigate({ q: '', who: '' })}>Clear search</button> : null}
      </div>
    </form>
  );
}

function Browse({ rows, kind, total, selected, search }: { rows: Row[] | undefined; kind: Selection['kind']; total: number; selected?: Selection; search?: Read<SearchResponse> }) {
  const { state, navigate } = usePage();
  const intents = useRead<IntentsResponse>('api/intents', { ...apiFilter(state.filter), limit: 200 });
  const names = (intents.data?.intents ?? []).map((i) => i.name).sort();
  const narrowed = filtered(state.filter) || state.intent !== '';
  const noun = kind === 'conversation' ? 'conversation' : 'user';
  return (
    <section class="panel browse" aria-label="Conversations and users">
      <div class="tabs" role="tablist" aria-label="List">
        {(['conversations', 'users'] as const).map((list) => (
          <button type="button" class="tab" role="tab" aria-selected={state.list === list} onClick={() => navigate({ list }, true)}>
            {list === 'conversations' ? 'Conversations' : 'Users'}
          </button>
        ))}
      </div>
      <div class="list-filters">
        <label for="list-intent">Intent</label>
        <select id="list-intent" name="intent" value={state.intent} onChange={(e) => navigate({ intent: (e.target as HTMLSelectElement).value }, true)}>
            <option value="">All intents</option>
          {(names.includes(state.intent) || state.intent === '' ? names : [...names, state.intent]).map((name) => <option value={name}>{name}</option>)}
        </select>
      </div>
      <SearchForm />
      {search ? (
        <>
          <div class="list-head">
            <p class="list-total" role="status">{search.data ? `${plural(search.data.results.length, 'message')}${search.data.more ? ' (the newest)' : ''} found` : search.error ? `Cannot search: ${search.error.message}` : 'Searching…'}</p>
            {search.data ? <Exports path="api/search" params={{ q: state.q || undefined, user: state.who || undefined, limit: 200 }} file="search" what="the messages found" /> : null}
          </div>
          <ul class="list results" aria-label="Messages found">{search.data ? <Results results={search.data.results} more={search.data.more} /> : null}</ul>
        </>
      ) : (
        <>
          <div class="list-head">
            <p class="list-total" role="status">{rows ? `${plural(total, noun)}${narrowed ? ` match${total === 1 ? 'es' : ''} the filters` : ''}` : 'Loading…'}</p>
            {rows ? <Exports path={kind === 'conversation' ? 'api/conversations' : 'api/users'} params={{ intent: state.intent || undefined, limit: 100_000 }} file={kind === 'conversation' ? 'conversations' : 'users'} what={`the ${noun}s`} /> : null}
          </div>
          <ul class="list" aria-label={kind === 'conversation' ? 'Conversations' : 'Users'}>
            {rows?.length === 0 ? <li class="empty">{narrowed ? 'Nothing matches these filters.' : 'No records yet. Point a bot at this endpoint.'}</li> : null}
            {rows?.map((row) => <ListRow row={row} kind={kind} selected={selected?.kind === kind && selected.id === row.id} />)}
          </ul>
        </>
      )}
    </section>
  );
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

/** Entries a transcript read asks for at first, and how many more each "earlier" asks for. */
const PAGE = 500;
/** Most entries one transcript read returns (the read API's limit). */
const MAX_ENTRIES = 50_000;

/** Below this width the list and the transcript are screens of their own (as in style.css). */
export const ONE_PANE = '(max-width: 760px)';

function TranscriptPanel({ subject, onePane }: { subject: Selection | undefined; onePane: boolean }) {
  const { state, navigate, nameOf, remoteImages } = usePage();
  const heading = useRef<HTMLHeadingElement>(null);
  // On a phone the transcript opens as a screen of its own: start at its heading.
  useEffect(() => {
    if (onePane && subject) heading.current?.focus();
  }, [onePane, subject?.kind, subject?.id]);
  const bot = state.filter.bot || undefined;
  // Paging back asks for more of the latest entries (not for a page before them): a live update
  // then reads one unbroken stretch however many records arrive meanwhile.
  const [limit, setLimit] = useState(PAGE);
  const params = subject ? { [subject.kind]: subject.id, bot } : {};
  const read = useRead<TranscriptResponse>(subject ? 'api/transcript' : null, { ...params, limit });
  const entries = read.data?.entries ?? [];
  const total = read.data?.total ?? 0;
  const hidden = total - entries.length;
  // A search result older than what is shown: read further back until it is in.
  useEffect(() => {
    if (state.at !== undefined && read.data && hidden > 0 && limit < MAX_ENTRIES && !entries.some((e) => e.seq === state.at) && entries[0] && entries[0].seq > state.at) {
      setLimit(Math.min(MAX_ENTRIES, limit * 4));
    }
  }, [read.data, state.at]);
  const name = subject?.kind === 'user' ? nameOf(subject.id) : undefined;
  const title = subject ? `${subject.kind === 'conversation' ? 'Conversation' : 'User'} ${name ? `${name} (${subject.id})` : subject.id}` : 'Transcript';
  const missing = read.error && 'status' in read.error && read.error.status === 404;
  const withImages = entries.some((e) => e.images !== undefined);
  const earlier = hidden > 0 && limit < MAX_ENTRIES ? (
    <p class="earlier">
      <button type="button" class="link-button" onClick={() => setLimit(Math.min(MAX_ENTRIES, limit + PAGE))}>Show earlier entries</button>
      <span class="muted"> {plural(hidden, 'earlier entry', 'earlier entries')} not shown</span>
    </p>
  ) : null;
  return (
    <section class="panel transcript-panel" aria-label="Transcript">
      <header class="transcript-head">
        {onePane ? (
          <button type="button" class="link-button back" onClick={() => navigate({ selection: undefined, at: undefined })}>
            <span aria-hidden="true">← </span>{state.q || state.who ? 'Search results' : state.list === 'users' ? 'Users' : 'Conversations'}
          </button>
        ) : null}
        <div class="transcript-title">
          <h2 tabIndex={-1} ref={heading}>{title}</h2>
          <p class="transcript-meta">{read.data ? `${describe(entries)}${hidden > 0 ? ` (the latest of ${plural(total, 'entry', 'entries')})` : ''}` : ''}</p>
        </div>
        <div class="card-actions">
          {withImages ? (
            <button type="button" class="link-button" onClick={() => {
              const url = new URL(location.href);
              if (remoteImages) url.searchParams.delete('images');
              else url.searchParams.set('images', 'remote');
              location.assign(url.href);
            }}>{remoteImages ? 'Hide images' : 'Load images'}</button>
          ) : null}
          {state.at !== undefined ? <button type="button" class="link-button" onClick={() => navigate({ at: undefined }, true)}>Unmark</button> : null}
          {subject && read.data ? <Exports path="api/transcript" params={{ ...params, limit: MAX_ENTRIES }} filter={false} file={`transcript-${subject.id.replace(/[^\w.-]+/g, '_').slice(0, 60)}`} what="this transcript" /> : null}
        </div>
      </header>
      {!subject ? <p class="empty pad">Choose a conversation or a user.</p>
        : missing ? <p class="empty pad">Nothing recorded for this {subject.kind} yet.</p>
        : read.error && !read.data ? <p class="empty pad error">Cannot read the transcript: {read.error.message}</p>
        : <Transcript entries={entries} subject={`${subject.kind}:${subject.id}`} at={state.at} before={earlier} />}
    </section>
  );
}

function conversationRow(c: ConversationSummary, nameOf: (id: string, bot?: string) => string | undefined): Row {
  const users = c.userIds.map((id) => {
    const name = nameOf(id, c.bot);
    return name ? `${name} (${id})` : id;
  });
  return {
    id: c.conversationId, title: c.conversationId, platform: c.platform, channel: c.channel, messages: c.messages, events: c.events, lastActivity: c.lastActivity,
    detail: `${users.length === 1 ? `user ${users[0]}` : plural(users.length, 'user')}${c.botName ? ` · ${c.botName}` : ''}`,
  };
}

function userRow(u: UserSummary): Row {
  return {
    id: u.userId, title: u.name ? `${u.name} (${u.userId})` : u.userId || '(no user id)', platform: u.platform, channel: u.channel, messages: u.messages, events: u.events, lastActivity: u.lastActivity,
    detail: `${plural(u.conversations, 'conversation')}${u.botName ? ` · ${u.botName}` : ''}`,
  };
}

/** The Transcripts view. */
export function ConversationsView() {
  const { state, nameOf } = usePage();
  const kind: Selection['kind'] = state.list === 'users' ? 'user' : 'conversation';
  const filter = { ...apiFilter(state.filter), intent: state.intent || undefined, limit: 200 };
  const conversations = useRead<ConversationsResponse>(kind === 'conversation' ? 'api/conversations' : null, filter);
  const users = useRead<UsersResponse>(kind === 'user' ? 'api/users' : null, filter);
  const searching = state.q !== '' || state.who !== '';
  const search = useRead<SearchResponse>(searching ? 'api/search' : null, { ...apiFilter(state.filter), q: state.q || undefined, user: state.who || undefined, limit: 100 });
  const rows = kind === 'conversation'
    ? conversations.data?.conversations.map((c) => conversationRow(c, nameOf))
    : users.data?.users.map(userRow);
  const total = (kind === 'conversation' ? conversations.data?.total : users.data?.total) ?? 0;
  const onePane = useMedia(ONE_PANE);
  // Until one is chosen, show the most recently active one of the list beside it (on a phone, the list alone).
  const subject = state.selection ?? (!onePane && rows?.[0] ? { kind, id: rows[0].id } : undefined);
  return (
    <div class={`workspace${onePane ? ` one-pane ${state.selection ? 'showing-transcript' : 'showing-list'}` : ''}`}>
      {onePane && state.selection ? null : <Browse rows={rows} kind={kind} total={total} selected={subject} search={searching ? search : undefined} />}
      {onePane && !state.selection ? null : <TranscriptPanel key={subject ? `${subject.kind}:${subject.id}` : ''} subject={subject} onePane={onePane} />}
    </div>
  );
}
