/**
 * Plain-text rendering of transcripts and summaries, for the terminal. Pure functions: the
 * `transcript` command and the demo print what they return.
 */
import type { EntryButton, TrackingSummary, TranscriptEntry } from '../index.js';

/** Options of `renderTranscript`. */
export interface RenderTranscriptOptions {
  /** Heading line. Default: `Transcript of user <id> (<platform>)` from the first entry, `Transcript of <name> (user <id>, <platform>)` when the user's name is known. */
  title?: string;
  /** Users' names known from elsewhere (`/api/users`), by user id, for users whose entries carry none (a Messenger user's, say). */
  names?: ReadonlyMap<string, string>;
}

/**
 * Each user's name, as the entries carry it (the channel's `from.name`; the first one seen), by
 * user id. Users whose entries carry no name are not in the map.
 */
export function userNames(entries: readonly TranscriptEntry[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (entry.userName !== undefined && entry.userName !== '' && !names.has(entry.userId)) names.set(entry.userId, entry.userName);
  }
  return names;
}

/** A user as text: `Ann Smith (ann)` when the name is known, else the id. */
export function userLabel(userId: string, name: string | undefined): string {
  return name === undefined ? userId : `${name} (${userId})`;
}

const INDENT = ' '.repeat(20);

function who(entry: TranscriptEntry): string {
  if (entry.direction === 'event') return 'event *';
  if (entry.direction === 'incoming') return 'user  >';
  // As the page tags it: a reply the bot marked AI-generated.
  return entry.aiGenerated ? 'bot   < [AI generated]' : 'bot   <';
}

/** A button as the page shows it: its label, else its value, else its id. */
function buttonText(button: EntryButton): string {
  return button.label || button.value || button.id;
}

/**
 * An amount in its currency as people write it: `4.20 EUR`, `500 JPY` (the currency's own
 * decimals); a currency code Intl does not know keeps the amount as given.
 */
export function money(amount: number, currency: string): string {
  let digits: number | undefined;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    digits = undefined;
  }
  return `${digits === undefined ? String(amount) : amount.toFixed(digits)} ${currency}`;
}

function continued(text: string): string {
  return text.replace(/\r?\n/g, `\n${INDENT}`);
}

function headline(entry: TranscriptEntry, speaker?: string): string {
  if (entry.event) {
    const { type, name, amount, currency, referenceNumber, extraInfo } = entry.event;
    const parts = [type || 'event', JSON.stringify(name)];
    // A rating as the page shows it: its thumb, then the user's comment.
    const reaction = extraInfo?.reaction;
    if (reaction === 'like' || reaction === 'dislike') parts.push(reaction === 'like' ? '[thumbs up]' : '[thumbs down]');
    const comment = extraInfo?.feedbackText ?? extraInfo?.comment;
    if (typeof comment === 'string' && comment !== '') parts.push(JSON.stringify(comment));
    if (amount !== undefined) parts.push(currency === undefined ? `amount ${amount}` : money(amount, currency));
    if (referenceNumber !== undefined) parts.push(`ref ${referenceNumber}`);
    return parts.join(' ');
  }
  const text = entry.text === undefined || entry.text === '' ? '(no text)' : continued(entry.text);
  return speaker === undefined ? text : `${speaker}: ${text}`;
}

function details(entry: TranscriptEntry, clicked: string | undefined): string[] {
  const lines: string[] = [];
  if (entry.intent) {
    const inputs = entry.intent.inputs.map((i) => `${i.name}=${i.value}`).join(', ');
    lines.push(`intent: ${entry.intent.name}${inputs ? ` (${inputs})` : ''}`);
  }
  if (entry.buttons) lines.push(`buttons: ${entry.buttons.map(buttonText).join(' | ')}`);
  if (entry.clickedButton !== undefined) lines.push(`clicked: ${clicked ?? entry.clickedButton}`);
  if (entry.images) lines.push(`images: ${entry.images.join(' ')}`);
  return lines.map((line) => INDENT + line);
}

/**
 * The default heading of a transcript, from its first entry: `Transcript of user <id> (<platform>)`,
 * or `Transcript of <name> (user <id>, <platform>)` when the entries carry the user's name.
 */
export function transcriptTitle(entries: readonly TranscriptEntry[], known: ReadonlyMap<string, string> = new Map()): string {
  const first = entries[0];
  return first ? defaultTitle(first, userNames(entries).get(first.userId) ?? known.get(first.userId)) : 'Transcript (empty)';
}

function defaultTitle(first: TranscriptEntry, name: string | undefined): string {
  if (first.userId === '') return `Transcript of scripted records (no user)${first.platform ? ` (${first.platform})` : ''}`;
  if (name === undefined) return `Transcript of user ${first.userId}${first.platform ? ` (${first.platform})` : ''}`;
  return `Transcript of ${name} (user ${first.userId}${first.platform ? `, ${first.platform}` : ''})`;
}

/**
 * One conversation or user's entries as text: a heading, then one line per entry (time in UTC,
 * who, text or event) with indented lines for intent, buttons, clicked button and images.
 * A line with the date precedes the first entry of each day. When the entries come from more than
 * one user (a group conversation), what a user says starts with their name (or id).
 *
 * @example
 * Transcript of user u1 (universal)
 * 2025-01-02
 *   10:11:12  user  > I want a pizza
 *                     intent: order (size=large)
 */
export function renderTranscript(entries: readonly TranscriptEntry[], options: RenderTranscriptOptions = {}): string {
  const first = entries[0];
  const names = new Map([...(options.names ?? []), ...userNames(entries)]);
  const title = options.title ?? (first ? defaultTitle(first, names.get(first.userId)) : 'Transcript (empty)');
  // The label of each button as last offered (by id), for the click that names it.
  const offered = new Map<string, string>();
  const several = new Set(entries.filter((e) => e.userId !== '').map((e) => e.userId)).size > 1;
  const lines = [title];
  let day = '';
  for (const entry of entries) {
    const date = entry.time.slice(0, 10);
    if (date !== day) {
      day = date;
      lines.push(date);
    }
    const speaker = several && entry.direction === 'incoming' && entry.userId !== '' ? (names.get(entry.userId) ?? entry.userId) : undefined;
    const clicked = entry.clickedButton === undefined ? undefined : offered.get(entry.clickedButton);
    lines.push(`  ${entry.time.slice(11, 19)}  ${who(entry)} ${headline(entry, speaker)}`, ...details(entry, clicked));
    for (const button of entry.buttons ?? []) if (button.id !== '') offered.set(button.id, buttonText(button));
  }
  return lines.join('\n');
}

function counts(map: Record<string, number>): string {
  const parts = Object.entries(map).sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ${n}`);
  return parts.length > 0 ? parts.join(', ') : '-';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Options of `renderSummary`. */
export interface RenderSummaryOptions {
  /** What the first line starts with. Default `Summary` (of everything the endpoint holds). */
  title?: string;
}

/**
 * The summary as text: totals, then counts by type, platform, intent and event type, and revenue
 * per currency (amounts in different currencies are never added; `unknown` for events that name none).
 */
export function renderSummary(summary: TrackingSummary, options: RenderSummaryOptions = {}): string {
  return [
    `${options.title ?? 'Summary'}: ${plural(summary.records, 'record')}, ${plural(summary.messages, 'message')}, ${plural(summary.events, 'event')}, ${plural(summary.users, 'user')}, ${plural(summary.conversations, 'conversation')}`,
    `  by type:      ${counts(summary.byType)}`,
    `  by platform:  ${counts(summary.byPlatform)}`,
    `  by intent:    ${counts(summary.byIntent)}`,
    `  events:       ${counts(summary.byEventType)}`,
    `  revenue:      ${revenue(summary.revenue)}`,
  ].join('\n');
}

/** Revenue per currency, never added across currencies: `EUR 20, USD 15.5, unknown 7 from 3 revenue events`; `-` when there is none. */
function revenue({ count, byCurrency }: TrackingSummary['revenue']): string {
  const sums = Object.entries(byCurrency).map(([currency, sum]) => `${currency} ${sum}`);
  return count === 0 && sums.length === 0 ? '-' : `${sums.join(', ') || '0'} from ${plural(count, 'revenue event')}`;
}
