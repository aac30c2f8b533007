/**
 * Signing in to the page. The page asks `GET /api/access` who it reads as: when the endpoint
 * answers 401 (off loopback, or once readers are configured), it shows a form that asks for a
 * reader token, checks it the same way, and keeps it in sessionStorage — for this tab only, gone
 * when the tab closes; never in localStorage, a cookie or the URL. Every read then sends it as
 * `Authorization: Bearer`. The header says who is signed in, with a way to sign out; a read
 * answered 401 later (the token was withdrawn) brings the form back.
 */
import type { JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { AccessResponse } from '../../types.js';
import { ReadApi, ReadError } from './api.js';
import { App } from './app.js';

/** Where the token is kept (sessionStorage: this tab only). */
export const TOKEN_STORAGE_KEY = 'conversation-analytics.reader-token';

const NOT_A_TOKEN = 'That is not one of this endpoint\'s reader tokens (write keys cannot read). Check it, or ask the endpoint\'s operator for one.';
const WITHDRAWN = 'Your reader token is no longer accepted; sign in again.';

function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null; // storage turned off: sign in each time
  }
}

function storeToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(TOKEN_STORAGE_KEY);
    else sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
  } catch {
    // storage turned off: the token lives as long as the page
  }
}

/** Where the page stands: asking, asking for a token, refused, or reading as someone. */
type Gate =
  | { kind: 'checking' }
  | { kind: 'sign-in'; error?: string }
  | { kind: 'failed'; error: string }
  | { kind: 'in'; api: ReadApi; access: AccessResponse; token: string | null };

/** Who is signed in, and what they may see; with a sign-out when they signed in with a token. */
function Account({ access, onSignOut }: { access: AccessResponse; onSignOut?: () => void }) {
  if (access.reader === null) return null;
  const scope = access.bots === null ? 'every bot' : access.bots.map((b) => b.name ?? `bot ${b.bot}`).join(', ');
  return (
    <div class="account" data-reader={access.reader}>
      <span>Signed in as <strong>{access.reader}</strong> <span class="account-scope">({scope}{access.admin ? '; may erase' : ''})</span></span>
      {onSignOut ? <button type="button" class="link-button" onClick={onSignOut}>Sign out</button> : null}
    </div>
  );
}

/** The form that asks for a reader token. */
function SignInForm({ error, onSubmit, busy }: { error?: string; onSubmit: (token: string) => void; busy: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [error]);
  const submit = (event: JSX.TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = (input.current?.value ?? '').trim();
    if (input.current) input.current.value = '';
    if (token !== '') onSubmit(token);
  };
  return (
    <main class="notice sign-in">
      <h1>Conversation analytics</h1>
      <p>Reading this endpoint needs a reader token.</p>
      {error ? <p class="sign-in-error" role="alert">{error}</p> : null}
      <form class="key-form" onSubmit={submit}>
        <label>Reader token <input ref={input} type="password" name="token" autocomplete="off" required disabled={busy} /></label>
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
    </main>
  );
}

/**
 * The page: signs in when it must, then the app. `remoteImages` is true when it was opened with
 * `?images=remote`.
 */
export function Root({ remoteImages }: { remoteImages: boolean }) {
  const [gate, setGate] = useState<Gate>({ kind: 'checking' });
  const [busy, setBusy] = useState(false);
  const attempt = useRef(0);

  const check = useCallback(async (token: string | null, from: 'stored' | 'form') => {
    const mine = ++attempt.current;
    setBusy(true);
    let access: AccessResponse;
    try {
      access = await new ReadApi(token).get<AccessResponse>('api/access');
    } catch (error) {
      if (mine !== attempt.current) return;
      setBusy(false);
      const status = error instanceof ReadError ? error.status : 0;
      if (status === 401) {
        storeToken(null);
        const tried = token !== null;
        setGate({ kind: 'sign-in', error: tried ? (from === 'form' ? NOT_A_TOKEN : WITHDRAWN) : undefined });
      } else {
        setGate({ kind: 'failed', error: `Cannot read from the endpoint: ${(error as Error).message}` });
      }
      return;
    }
    if (mine !== attempt.current) return;
    setBusy(false);
    storeToken(token);
    const api = new ReadApi(token, () => {
      attempt.current++;
      storeToken(null);
      setGate({ kind: 'sign-in', error: WITHDRAWN });
    });
    setGate({ kind: 'in', api, access, token });
  }, []);

  useEffect(() => {
    void check(storedToken(), 'stored');
  }, [check]);

  const signOut = useCallback(() => {
    attempt.current++;
    storeToken(null);
    setGate({ kind: 'sign-in' });
  }, []);

  switch (gate.kind) {
    case 'checking':
      return <main class="notice" aria-busy="true"><h1>Conversation analytics</h1><p>Opening…</p></main>;
    case 'sign-in':
      return <SignInForm error={gate.error} busy={busy} onSubmit={(token) => void check(token, 'form')} />;
    case 'failed':
      return (
        <main class="notice">
          <h1>Conversation analytics</h1>
          <p role="alert">{gate.error}</p>
          <p><button type="button" class="link-button" onClick={() => void check(storedToken(), 'stored')}>Try again</button></p>
        </main>
      );
    case 'in':
      return <App api={gate.api} remoteImages={remoteImages} account={<Account access={gate.access} onSignOut={gate.token === null ? undefined : signOut} />} />;
  }
}
