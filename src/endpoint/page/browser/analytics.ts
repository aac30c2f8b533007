/**
 * The analytics panel: messages over time (incoming and outgoing), top intents, the share of
 * incoming messages marked `NotHandled`, and revenue over time.
 */
import type { IntentsResponse, TimeseriesResponse } from '../../types.js';
import type { TimeBucket } from '../../types.js';
import { barChart, columnChart, lineChart, ringChart } from './charts.js';
import { el, replaceChildren } from './dom.js';
import { amount, count, percent, plural } from './format.js';

/** The bucket width chosen in the panel. */
export type BucketChoice = TimeBucket | 'auto';

const NOT_HANDLED = 'NotHandled';

function card(className: string, title: string, ...extra: HTMLElement[]): { card: HTMLElement; body: HTMLElement; note: HTMLElement } {
  const body = el('div', 'card-body');
  const note = el('p', 'card-note');
  return { card: el('section', `card ${className}`, {}, el('header', 'card-head', {}, el('h3', '', {}, title), ...extra), body, note), body, note };
}

function legend(items: readonly [string, string][]): HTMLElement {
  return el('span', 'legend', {}, ...items.map(([label, className]) => el('span', `legend-item ${className}`, {}, label)));
}

function empty(body: HTMLElement, message: string): void {
  replaceChildren(body, el('p', 'empty', {}, message));
}

/** The analytics section and its four charts. */
export class AnalyticsPanel {
  readonly element: HTMLElement;
  private readonly bucket = el('select', '', { 'aria-label': 'Time bucket', name: 'bucket' },
    el('option', '', { value: 'auto' }, 'Auto'), el('option', '', { value: 'minute' }, 'Per minute'),
    el('option', '', { value: 'hour' }, 'Per hour'), el('option', '', { value: 'day' }, 'Per day'));
  private readonly messages = card('messages', 'Messages over time', legend([['Incoming', 'incoming'], ['Outgoing', 'outgoing']]));
  private readonly intents = card('intents', 'Top intents');
  private readonly notHandled = card('not-handled', 'Not handled');
  private readonly revenue = card('revenue', 'Revenue over time');

  /** @param onBucket Called when another bucket width is chosen (the data must be read again). */
  constructor(onBucket: () => void) {
    this.bucket.addEventListener('change', () => onBucket());
    this.element = el('section', 'analytics', { 'aria-label': 'Analytics' },
      el('header', 'section-head', {}, el('h2', '', {}, 'Analytics'), el('label', 'bucket-choice', {}, 'Time buckets', this.bucket)),
      el('div', 'charts-grid', {}, this.messages.card, this.intents.card, this.revenue.card, this.notHandled.card),
    );
  }

  /** The chosen bucket width. */
  get bucketChoice(): BucketChoice {
    return this.bucket.value as BucketChoice;
  }

  /** Draws the charts from the read side's answers. */
  show(series: TimeseriesResponse, intents: IntentsResponse): void {
    const { points, bucket } = series;
    const per = `per ${bucket}`;
    if (points.length === 0) {
      empty(this.messages.body, 'No messages yet.');
      empty(this.revenue.body, 'No revenue events yet.');
      this.messages.note.textContent = this.revenue.note.textContent = '';
    } else {
      const totalIn = points.reduce((sum, p) => sum + p.incoming, 0);
      const totalOut = points.reduce((sum, p) => sum + p.outgoing, 0);
      replaceChildren(this.messages.body, columnChart(points, bucket, [
        { key: 'incoming', label: 'Incoming', className: 'incoming' },
        { key: 'outgoing', label: 'Outgoing', className: 'outgoing' },
      ], `Incoming and outgoing messages ${per}`, 'chart-messages'));
      this.messages.note.textContent = `${count(totalIn)} incoming, ${count(totalOut)} outgoing · ${plural(points.length, bucket)}`;
      const revenue = Math.round(points.reduce((sum, p) => sum + p.revenue, 0) * 1e6) / 1e6;
      replaceChildren(this.revenue.body, lineChart(points, bucket, { key: 'revenue', label: 'Revenue', className: 'revenue' }, `Revenue ${per}`, 'chart-revenue', amount));
      this.revenue.note.textContent = `${amount(revenue)} in total · ${plural(points.length, bucket)}`;
    }

    if (intents.intents.length === 0) empty(this.intents.body, 'No intents yet.');
    else {
      replaceChildren(this.intents.body, barChart(intents.intents.map((i) => ({
        label: i.name,
        value: i.incoming + i.outgoing,
        className: i.name === NOT_HANDLED ? 'warn' : undefined,
        title: `${i.name}: ${i.incoming} incoming, ${i.outgoing} outgoing`,
      })), 'Messages per intent', 'chart-intents'));
    }
    this.intents.note.textContent = intents.total > intents.intents.length ? `Top ${intents.intents.length} of ${intents.total}` : plural(intents.total, 'intent');

    const share = intents.incomingMessages === 0 ? 0 : intents.notHandled / intents.incomingMessages;
    replaceChildren(this.notHandled.body, ringChart(share, `${percent(share)} of incoming messages were not handled`, 'chart-not-handled'));
    this.notHandled.note.textContent = `${count(intents.notHandled)} of ${plural(intents.incomingMessages, 'incoming message')} marked ${NOT_HANDLED}`;
  }
}
