/**
 * Plain-text rendering of transcripts and summaries, for the terminal. Pure functions: the
 * `transcript` command and the demo print what they return.
 */
import type { TrackingSummary, TranscriptEntry } from '../endpoint/index.js';

/** Options of `renderTranscript`. */
export interface RenderTranscriptOptions {
  /** Heading line. Default: `Transcript of user <id>` from the first entry. */
  title?: string;
}

const INDENT = ' '.repeat(20);

function who(entry: TranscriptEntry): string {
  if (entry.direction === 'event') return 'event *';
  return entry.direction === 'incoming' ? 'user  >' : 'bot   <';
}

function continued(text: string): string {
  return text.replace(/\r?\n/g, `\n${INDENT}`);
}

function headline(entry: TranscriptEntry): string {
  if (entry.event) {
    const { type, name, amount, referenceNumber } = entry.event;
    const parts = [type || 'event', JSON.stringify(name)];
    if (amount !== undefined) parts.push(`amount ${amount}`);
    if (referenceNumber !== undefined) parts.push(`ref ${referenceNumber}`);
    return parts.join(' ');
  }
  return entry.text === undefined || entry.text === '' ? '(no text)' : continued(entry.text);
}

function details(entry: TranscriptEntry): string[] {
  const lines: string[] = [];
  if (entry.intent) {
    const inputs = entry.intent.inputs.map((i) => `${i.name}=${i.value}`).join(', ');
    lines.push(`intent: ${entry.intent.name}${inputs ? ` (${inputs})` : ''}`);
  }
  if (entry.buttons) lines.push(`buttons: ${entry.buttons.map((b) => `[${b.id}] ${b.label}`).join(' | ')}`);
  if (entry.clickedButton !== undefined) lines.push(`clicked: ${entry.clickedButton}`);
  if (entry.images) lines.push(`images: ${entry.images.join(' ')}`);
  return lines.map((line) => INDENT + line);
}

/**
 * One conversation or user's entries as text: a heading, then one line per entry (time in UTC,
 * who, text or event) with indented lines for intent, buttons, clicked button and images.
 * A line with the date precedes the first entry of each day.
 *
 * @example
 * Transcript of user u1 (universal)
 * 2025-01-02
 *   10:11:12  user  > I want a pizza
 *                     intent: order (size=large)
 */
export function renderTranscript(entries: readonly TranscriptEntry[], options: RenderTranscriptOptions = {}): string {
  const first = entries[0];
  const title = options.title ?? (first
    ? `Transcript of ${first.userId === '' ? 'scripted records (no user)' : `user ${first.userId}`}${first.platform ? ` (${first.platform})` : ''}`
    : 'Transcript (empty)');
  const lines = [title];
  let day = '';
  for (const entry of entries) {
    const date = entry.time.slice(0, 10);
    if (date !== day) {
      day = date;
      lines.push(date);
    }
    lines.push(`  ${entry.time.slice(11, 19)}  ${who(entry)} ${headline(entry)}`, ...details(entry));
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

/**
 * The summary as text: totals, then counts by type, platform, intent and event type, and revenue.
 */
export function renderSummary(summary: TrackingSummary): string {
  return [
    `Summary: ${plural(summary.records, 'record')}, ${plural(summary.messages, 'message')}, ${plural(summary.events, 'event')}, ${plural(summary.users, 'user')}, ${plural(summary.conversations, 'conversation')}`,
    `  by type:      ${counts(summary.byType)}`,
    `  by platform:  ${counts(summary.byPlatform)}`,
    `  by intent:    ${counts(summary.byIntent)}`,
    `  events:       ${counts(summary.byEventType)}`,
    `  revenue:      ${summary.revenue.total} from ${plural(summary.revenue.count, 'revenue event')}`,
  ].join('\n');
}
