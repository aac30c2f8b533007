/**
 * The page: a header with the figures of the range and the live status, the views, the filter
 * bar, and the chosen view. Everything is read from the endpoint's JSON read side, and read again
 * whenever its live stream says records arrived.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { BotsResponse, TrackingSummary, UsersResponse } from '../../types.js';
import type { LiveStatus, ReadApi } from './api.js';
import { ReadError } from './api.js';
import { FilterBar } from './filter-bar.js';
import { count, nounFor, plural } from './format.js';
import { Page, useHashState, useLive, usePage, useRead, type PageContext } from './hooks.js';
import { apiFilter, VIEWS, type ViewName } from './state.js';
import { ConversationsView } from './views/conversations.js';
import { FeedbackView } from './views/feedback.js';
import { FlowView } from './views/flow.js';
import { MessagesView } from './views/messages.js';
import { RevenueView } from './views/revenue.js';
import { UsersView } from './views/users.js';

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  refused: 'Live updates refused',
};

const VIEW_COMPONENTS: Record<ViewName, () => preact.JSX.Element> = {
  users: UsersView,
  flow: FlowView,
  messages: MessagesView,
  feedback: FeedbackView,
  revenue: RevenueView,
  conversations: ConversationsView,
};

function message(error: unknown): string {
  return error instanceof ReadError ? `Cannot read from the endpoint: ${error.message}` : `Something went wrong: ${(error as Error).message}`;
}

/** The figures of the range, at the top. */
function Figures({ summary }: { summary: TrackingSummary | undefined }) {
  const figure = (name: string, noun: string, value: number | undefined) => (
    <div class="kpi" data-kpi={name} data-value={value}>
      <span class="kpi-value">{value === undefined ? '–' : count(value)}</span>
      <span class="kpi-label">{value === undefined ? `${noun}s` : nounFor(value, noun)}</span>
    </div>
  );
  return (
    <div class="kpis top-figures" role="group" aria-label="In this range">
      {figure('users', 'user', summary?.users)}
      {figure('conversations', 'conversation', summary?.conversations)}
      {figure('messages', 'message', summary?.messages)}
      {figure('events', 'event', summary?.events)}
      {figure('records', 'record', summary?.records)}
    </div>
  );
}

/** Everything inside the shared context: it reads the filter's choices and user names, and shows the chosen view. */
function Shell({ live, onSeen, problem, clearProblem, account }: { live: LiveStatus; onSeen: (records: number) => void; problem?: string; clearProblem: () => void; account?: ComponentChildren }) {
  const base = usePage();
  const { state, hrefFor } = base;
  const everything = useRead<TrackingSummary>('api/summary');
  const summary = useRead<TrackingSummary>('api/summary', apiFilter(state.filter));
  const bots = useRead<BotsResponse>('api/bots');
  const users = useRead<UsersResponse>('api/users', { limit: 1000 });
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    if (everything.data) onSeen(everything.data.records);
  }, [everything.data]);

  const names = useMemo(() => {
    const map = new Map<string, string>();
    for (const user of users.data?.users ?? []) {
      if (!user.name) continue;
      map.set(`${user.bot ?? ''} ${user.userId}`, user.name);
      if (!map.has(user.userId)) map.set(user.userId, user.name);
    }
    return map;
  }, [users.data]);
  const nameOf = useCallback((userId: string, bot?: string) => (bot !== undefined ? names.get(`${bot} ${userId}`) : undefined) ?? names.get(userId), [names]);
  const context = useMemo<PageContext>(() => ({ ...base, nameOf }), [base, nameOf]);

  const choices = useMemo(() => ({
    bots: bots.data?.bots ?? [],
    platforms: Object.keys(everything.data?.byPlatform ?? {}).sort(),
    channels: [...new Set((users.data?.users ?? []).map((u) => u.channel).filter((c): c is string => c !== null))].sort(),
  }), [bots.data, everything.data, users.data]);

  const View = VIEW_COMPONENTS[state.view];
  const label = VIEWS.find((v) => v.name === state.view)?.label ?? '';
  const error = summary.error ?? everything.error;
  const behind = summary.catchingUp ?? everything.catchingUp;
  const banner = problem ?? (error ? message(error) : undefined);

  return (
    <Page.Provider value={context}>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>Skip to the view</button>
      <header class="topbar">
        <h1>Conversation analytics</h1>
        <Figures summary={summary.data} />
        <span class="live" data-status={live} role="status">{LIVE_TEXT[live]}</span>
        {account}
      </header>
      <nav class="views" aria-label="Views">
        <ul>
          {VIEWS.map((v) => (
            <li><a href={hrefFor({ view: v.name })} aria-current={v.name === state.view ? 'page' : undefined} data-view={v.name}>{v.label}</a></li>
          ))}
        </ul>
      </nav>
      <FilterBar choices={choices} />
      {behind && !banner ? (
        <p class="banner catching-up" role="status" data-behind={behind.behindRecords}>
          Catching up — {plural(behind.behindRecords, 'record')} to go. The figures follow as soon as they are in.
        </p>
      ) : null}
      {banner ? (
        <p class="banner" role="alert">
          {banner}
          {problem ? <button type="button" class="link-button" onClick={clearProblem}>Dismiss</button> : null}
        </p>
      ) : null}
      <main ref={main} tabIndex={-1} aria-labelledby="view-title" class={`view view-${state.view}`} data-view={state.view}>
        <h2 id="view-title" class="sr-only">{label}</h2>
        <View />
      </main>
    </Page.Provider>
  );
}

/**
 * The page once signed in. `api` reads the endpoint; `remoteImages` is true when it was opened
 * with `?images=remote`; `account` (who is signed in, and a way out) goes in the header.
 */
export function App({ api, remoteImages, account }: { api: ReadApi; remoteImages: boolean; account?: ComponentChildren }) {
  const [state, navigate, hrefFor] = useHashState();
  const [seen, setSeen] = useState<number>();
  const live = useLive(api, seen);
  const [problem, setProblem] = useState<string>();
  const report = useCallback((error: unknown) => setProblem(message(error)), []);
  const context = useMemo<PageContext>(() => ({
    api, version: live.version, state, navigate, hrefFor, remoteImages, report, nameOf: () => undefined,
  }), [api, live.version, state, navigate, hrefFor, remoteImages, report]);
  return (
    <Page.Provider value={context}>
      <Shell live={live.status} onSeen={setSeen} problem={problem} clearProblem={() => setProblem(undefined)} account={account} />
    </Page.Provider>
  );
}
