/**
 * The page's state and reads as Preact hooks: the hash-held state, the live stream, and reads that
 * run again when their parameters change or records arrive.
 */
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { CatchingUp, RecordsEvent } from '../../types.js';
import { ReadApi, ReadError, type LiveStatus, type Params } from './api.js';
import { parseHash, toHash, type PageState } from './state.js';

/** What every part of the page shares. */
export interface PageContext {
  api: ReadApi;
  /** Grows by one whenever records arrive: reads depend on it. */
  version: number;
  state: PageState;
  /** Changes the state (a new history entry, unless `replace`). */
  navigate(patch: Partial<PageState>, replace?: boolean): void;
  /** The hash a link to the state with `patch` applied points to. */
  hrefFor(patch: Partial<PageState>): string;
  /** The user's name where records carry it (`bot userId` or `userId` → name). */
  nameOf(userId: string, bot?: string): string | undefined;
  /** Whether images from records may be loaded (the page was opened with `?images=remote`). */
  remoteImages: boolean;
  /** Reports a failed download or action in the page's banner. */
  report(error: unknown): void;
}

export const Page = createContext<PageContext>(undefined as unknown as PageContext);

/** The shared context. */
export function usePage(): PageContext {
  return useContext(Page);
}

/** The state in the URL's hash, and a way to change it. */
export function useHashState(): [PageState, (patch: Partial<PageState>, replace?: boolean) => void, (patch: Partial<PageState>) => string] {
  const [state, setState] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const read = () => setState(parseHash(location.hash));
    addEventListener('hashchange', read);
    return () => removeEventListener('hashchange', read);
  }, []);
  const hrefFor = useCallback((patch: Partial<PageState>) => toHash({ ...parseHash(location.hash), ...patch }), []);
  const navigate = useCallback((patch: Partial<PageState>, replace = false) => {
    const hash = toHash({ ...parseHash(location.hash), ...patch });
    if (hash === location.hash) return;
    if (replace) {
      history.replaceState(null, '', hash);
      setState(parseHash(hash));
    } else {
      location.hash = hash; // hashchange updates the state
    }
  }, []);
  return [state, navigate, hrefFor];
}

/**
 * Follows the live stream: `version` grows when the number of records stored differs from what
 * the page last read (`seen`), at most once per 250 ms however many records arrive.
 */
export function useLive(api: ReadApi, seen: number | undefined): { status: LiveStatus; version: number } {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [version, setVersion] = useState(0);
  const seenRef = useRef(seen);
  seenRef.current = seen;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = api.follow((event: RecordsEvent) => {
      // Before the page has read anything, what it reads is at least as new as this.
      if (seenRef.current === undefined || event.records === seenRef.current || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, 250);
    }, setStatus);
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [api]);
  return { status, version };
}

/**
 * A read's state: its answer (the last one, while a new read runs), its error, whether it is
 * running, and, while the endpoint's views catch up after a burst (it answered 503 with
 * `catchingUp`), how far behind they are: the read is then asked again after its `Retry-After`.
 */
export interface Read<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  catchingUp?: CatchingUp;
}

/**
 * Reads `path` with `params` (none while `path` is `null`), again whenever they change or records
 * arrive. While a read runs, the previous answer stays (so nothing flickers); an answer that comes
 * after a newer read started is dropped.
 */
export function useRead<T>(path: string | null, params: Params = {}): Read<T> {
  const { api, version } = usePage();
  const key = path === null ? null : api.url(path, params);
  const [read, setRead] = useState<Read<T>>({ loading: path !== null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    let again: number | undefined;
    setRead((r) => ({ ...r, loading: true }));
    api.get<T>(path, params).then(
      (data) => current && setRead({ data, loading: false }),
      (error: Error) => {
        if (!current) return;
        if (error instanceof ReadError && error.catchingUp !== undefined) {
          // Not an error: the views are catching up. The last answer stays; the read is asked again.
          const catchingUp = error.catchingUp;
          setRead((r) => ({ data: r.data, loading: true, catchingUp }));
          again = window.setTimeout(() => setAttempt((n) => n + 1), error.retryAfterMs);
        } else {
          setRead({ error, loading: false });
        }
      },
    );
    return () => {
      current = false;
      window.clearTimeout(again);
    };
    // `key` stands for path and params.
  }, [key, version, attempt]);
  return read;
}

/** Whether the window matches a media query (`(max-width: 760px)`), kept up to date as it changes. */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const changed = () => setMatches(list.matches);
    changed();
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}
