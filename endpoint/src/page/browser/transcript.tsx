/**
 * A transcript as chat bubbles: the user's messages on the left, the bot's on the right, events in
 * between. Intents are tags with their inputs; buttons are chips, the clicked one marked; images
 * are tiles that load only when the page was opened with `?images=remote` (https only); replies
 * marked AI-generated carry a tag; feedback events show the thumb and the comment; a toggle shows
 * the record's `platformJson`. New entries are added without redrawing the rest, and the pane
 * follows them while it is scrolled to the end.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EntryButton, EntryIntent, RecordResponse, TranscriptEntry } from '../../types.js';
import { Thumb } from './views/feedback.js';
import { amount, clockTime, webUrl } from './format.js';
import { usePage } from './hooks.js';

const EVENT_NAMES: Record<string, string> = {
  revenueEvent: 'Revenue',
  customEvent: 'Event',
  shareEvent: 'Share',
  pageLaunchEvent: 'Page launch',
  referralEvent: 'Referral',
};

/** A stable key per entry (a messenger record may give several entries with one `seq`). */
function keys(entries: readonly TranscriptEntry[]): string[] {
  const seen = new Map<number, number>();
  return entries.map((entry) => {
    const n = seen.get(entry.seq) ?? 0;
    seen.set(entry.seq, n + 1);
    return `${entry.seq}:${n}`;
  });
}

/** Which offered chip each click marks (`entryKey button-id`), and the label of each clicked button. */
function clicks(entries: readonly TranscriptEntry[], entryKeys: string[]): { chips: Set<string>; labels: Map<string, string> } {
  const latest = new Map<string, { key: string; label: string }>();
  const chips = new Set<string>();
  const labels = new Map<string, string>();
  entries.forEach((entry, i) => {
    if (entry.clickedButton !== undefined) {
      const offered = latest.get(entry.clickedButton);
      if (offered) chips.add(`${offered.key} ${entry.clickedButton}`);
      labels.set(entryKeys[i], offered?.label || entry.clickedButton);
    }
    for (const button of entry.buttons ?? []) {
      if (button.id !== '') latest.set(button.id, { key: entryKeys[i], label: chipText(button) });
    }
  });
  return { chips, labels };
}

function chipText(button: EntryButton): string {
  return button.label || button.value || button.id;
}

function IntentTags({ intent }: { intent: EntryIntent }) {
  return (
    <div class="intent">
      <span class={`tag intent-name${intent.name === 'NotHandled' ? ' warn' : ''}`} title="intent">{intent.name}</span>
      {intent.inputs.map((input) => (
        <span class="tag intent-input" title="intent input"><span class="input-name">{input.name}</span><span class="input-value">{input.value}</span></span>
      ))}
    </div>
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

function Placeholder({ url }: { url: string }) {
  const href = webUrl(url);
  const inner = <><span class="thumb-icon" aria-hidden="true" /><span class="thumb-name">{fileName(url)}</span></>;
  return href
    ? <a class="thumb placeholder" href={href} target="_blank" rel="noopener noreferrer" title={url}>{inner}</a>
    : <span class="thumb placeholder" title={url}>{inner}</span>;
}

function Thumbnail({ url }: { url: string }) {
  const { remoteImages } = usePage();
  const [failed, setFailed] = useState(false);
  const loadable = url.startsWith('data:image/') || (remoteImages && url.startsWith('https://'));
  if (!loadable || failed) return <Placeholder url={url} />;
  return <img class="thumb" src={url} alt={fileName(url)} title={url} loading="lazy" referrerpolicy="no-referrer" onError={() => setFailed(true)} />;
}

/** A toggle that fetches the stored record once and shows its `platformJson` (or its body, when it has none). */
function useJson(seq: number): { button: JSX.Element; box: JSX.Element | null } {
  const { api } = usePage();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState<{ shows: string; text: string } | undefined>();
  const toggle = async () => {
    setOpen(!open);
    if (open || text) return;
    setText({ shows: '', text: 'Loading…' });
    try {
      const { record } = await api.get<RecordResponse>('api/record', { seq });
      const body = record.body as { platformJson?: unknown } | null;
      const has = typeof body === 'object' && body !== null && body.platformJson !== undefined;
      setText({ shows: has ? 'platformJson' : 'body', text: `${has ? '' : '// no platformJson; the record body:\n'}${JSON.stringify(has ? body.platformJson : record.body, null, 2)}` });
    } catch (error) {
      setText({ shows: '', text: (error as Error).message });
    }
  };
  return {
    button: <button type="button" class="json-toggle" aria-expanded={open} title="Show the record's platformJson" onClick={toggle}>platformJson</button>,
    box: open ? <pre class="json" data-shows={text?.shows || undefined} tabIndex={0}>{text?.text}</pre> : null,
  };
}

function Message({ entry, entryKey, chips, clickedLabel, found }: { entry: TranscriptEntry; entryKey: string; chips: Set<string>; clickedLabel?: string; found: boolean }) {
  const json = useJson(entry.seq);
  const who = entry.direction === 'incoming' ? entry.userName || entry.userId || 'user' : 'bot';
  const hasText = entry.text !== undefined && entry.text !== '';
  return (
    <div class={`entry ${entry.direction}${found ? ' found' : ''}`} data-seq={entry.seq}>
      <div class="meta">
        <span class="who" title={entry.userName && entry.direction === 'incoming' ? entry.userId : undefined}>{who}</span>
        {entry.aiGenerated ? <span class="tag ai-generated" title="Marked AI-generated by the bot (AIGeneratedContent)">AI generated</span> : null}
        <time datetime={entry.time}>{clockTime(entry.time)}</time>
        {json.button}
      </div>
      <div class="bubble">
        {hasText ? <p class="text">{entry.text}</p> : null}
        {entry.images ? <div class="images">{entry.images.map((url) => <Thumbnail url={url} />)}</div> : null}
        {entry.buttons ? (
          <div class="buttons">
            {entry.buttons.map((button) => (
              <span class={`button${chips.has(`${entryKey} ${button.id}`) ? ' clicked' : ''}`} data-button-id={button.id} title={button.value && button.value !== button.label ? button.value : undefined}>{chipText(button)}</span>
            ))}
          </div>
        ) : null}
        {!hasText && !entry.images && !entry.buttons ? <p class="text muted">(no text)</p> : null}
      </div>
      {entry.clickedButton !== undefined ? <div class="clicked-note">Clicked <span class="clicked-label">{clickedLabel ?? entry.clickedButton}</span></div> : null}
      {entry.intent ? <IntentTags intent={entry.intent} /> : null}
      {json.box}
    </div>
  );
}

function Event({ entry, found }: { entry: TranscriptEntry; found: boolean }) {
  const json = useJson(entry.seq);
  const event = entry.event;
  const type = event?.type ?? '';
  const reaction = event?.extraInfo?.reaction;
  const comment = event?.extraInfo?.feedbackText ?? event?.extraInfo?.comment;
  return (
    <div class={`entry event${found ? ' found' : ''}`} data-seq={entry.seq}>
      <div class={`event-pill${type === 'revenueEvent' ? ' revenue' : ''}`}>
        <span class="event-type">{EVENT_NAMES[type] ?? type}</span>
        {event?.name ? <span class="event-name">{event.name}</span> : null}
        {reaction === 'like' || reaction === 'dislike' ? <span class="event-reaction"><Thumb up={reaction === 'like'} /><span class="sr-only">{reaction}</span></span> : null}
        {typeof comment === 'string' && comment !== '' ? <span class="event-comment">{comment}</span> : null}
        {event?.amount !== undefined ? <span class="event-amount">{amount(event.amount)}</span> : null}
        {event?.amount !== undefined && event.currency ? <span class="event-currency">{event.currency}</span> : null}
        {event?.referenceNumber ? <span class="event-ref">{event.referenceNumber}</span> : null}
        <time datetime={entry.time}>{clockTime(entry.time)}</time>
        {json.button}
      </div>
      {json.box}
    </div>
  );
}

/**
 * The entries, in a scrolling pane. `subject` names what is shown (the pane starts at its end when
 * it changes); `at` is the `seq` of an entry to show and mark (a search result).
 */
export function Transcript({ entries, subject, at, before }: { entries: readonly TranscriptEntry[]; subject: string; at?: number; before?: ComponentChildren }) {
  const pane = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const shown = useRef('');
  const entryKeys = useMemo(() => keys(entries), [entries]);
  const { chips, labels } = useMemo(() => clicks(entries, entryKeys), [entries, entryKeys]);
  useEffect(() => {
    const element = pane.current;
    if (!element) return;
    const onScroll = () => {
      atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    const element = pane.current;
    if (!element || entries.length === 0) return;
    const target = `${subject}#${at ?? ''}`;
    const found = at === undefined ? null : element.querySelector<HTMLElement>(`[data-seq="${at}"]`);
    if (shown.current !== target) {
      if (found) {
        element.scrollTop += found.getBoundingClientRect().top - element.getBoundingClientRect().top - element.clientHeight / 3;
      } else {
        element.scrollTop = element.scrollHeight;
      }
      // An entry to show that is not read yet (further back): keep looking for it as entries come.
      if (at === undefined || found) shown.current = target;
    } else if (atEnd.current) {
      element.scrollTop = element.scrollHeight;
    }
    atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
  }, [entries, subject, at]);
  return (
    <div class="scroll" ref={pane} tabIndex={0} role="region" aria-label="Transcript entries">
      {before}
      <div class="bubbles" role="log" aria-live="polite">
        {entries.map((entry, i) => (entry.direction === 'event'
          ? <Event key={entryKeys[i]} entry={entry} found={entry.seq === at} />
          : <Message key={entryKeys[i]} entry={entry} entryKey={entryKeys[i]} chips={chips} clickedLabel={labels.get(entryKeys[i])} found={entry.seq === at} />))}
      </div>
    </div>
  );
}
