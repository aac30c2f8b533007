/**
 * The filter every view takes: a date range (both days included; quick ranges up to today), a
 * bot, a platform and a channel. Choices come from what the endpoint has stored.
 */
import type { BotsResponse } from '../../types.js';
import { usePage } from './hooks.js';
import { EMPTY_FILTER, filtered, type Filter } from './state.js';

/** The choices of the filter. */
export interface FilterChoices {
  bots: BotsResponse['bots'];
  platforms: string[];
  channels: string[];
}

const DAY = 86_400_000;
const QUICK = [7, 30, 90];

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function daysBack(days: number): string {
  return new Date(Date.parse(`${today()}T00:00:00Z`) - (days - 1) * DAY).toISOString().slice(0, 10);
}

/** Which quick range the dates are: `all`, `7`, `30`, `90`, or `custom`. */
function quickRange(filter: Filter): string {
  if (!filter.from && !filter.to) return 'all';
  const quick = QUICK.find((days) => filter.to === today() && filter.from === daysBack(days));
  return quick === undefined ? 'custom' : String(quick);
}

/** Options with the current value kept even when the endpoint no longer lists it. */
function options(values: { value: string; label: string }[], current: string) {
  const all = current && !values.some((v) => v.value === current) ? [...values, { value: current, label: current }] : values;
  return all.map((v) => <option value={v.value}>{v.label}</option>);
}

/** The filter bar. */
export function FilterBar({ choices }: { choices: FilterChoices }) {
  const { state, navigate } = usePage();
  const filter = state.filter;
  const set = (patch: Partial<Filter>) => navigate({ filter: { ...filter, ...patch }, at: undefined }, true);
  const value = (event: Event) => (event.target as HTMLInputElement | HTMLSelectElement).value;
  return (
    <form class="filter-bar" aria-label="Filter" onSubmit={(event) => event.preventDefault()}>
      <div class="field range">
        <label for="filter-range">Range</label>
        <select id="filter-range" name="range" value={quickRange(filter)} onChange={(event) => {
          const range = value(event);
          if (range === 'all') set({ from: '', to: '' });
          else if (range !== 'custom') set({ from: daysBack(Number(range)), to: today() });
        }}>
          <option value="all">All time</option>
          {QUICK.map((days) => <option value={String(days)}>Last {days} days</option>)}
          <option value="custom">Dates below</option>
        </select>
      </div>
      <div class="field">
        <label for="filter-from">From</label>
        <input type="date" id="filter-from" name="from" value={filter.from} max={filter.to || undefined} onChange={(event) => set({ from: value(event) })} />
      </div>
      <div class="field">
        <label for="filter-to">To</label>
        <input type="date" id="filter-to" name="to" value={filter.to} min={filter.from || undefined} onChange={(event) => set({ to: value(event) })} />
      </div>
      <div class="field">
        <label for="filter-bot">Bot</label>
        <select id="filter-bot" name="bot" value={filter.bot} onChange={(event) => set({ bot: value(event) })}>
          <option value="">All bots</option>
          {options(choices.bots.map((b) => ({ value: b.name ?? b.bot, label: b.name ?? `bot ${b.bot}` })), filter.bot)}
        </select>
      </div>
      <div class="field">
        <label for="filter-platform">Platform</label>
        <select id="filter-platform" name="platform" value={filter.platform} onChange={(event) => set({ platform: value(event) })}>
          <option value="">All platforms</option>
          {options(choices.platforms.map((p) => ({ value: p, label: p })), filter.platform)}
        </select>
      </div>
      <div class="field">
        <label for="filter-channel">Channel</label>
        <select id="filter-channel" name="channel" value={filter.channel} onChange={(event) => set({ channel: value(event) })}>
          <option value="">All channels</option>
          {options(choices.channels.map((c) => ({ value: c, label: c })), filter.channel)}
        </select>
      </div>
      <div class="filter-actions">
        <button type="button" class="link-button" disabled={!filtered(filter)} onClick={() => navigate({ filter: EMPTY_FILTER, at: undefined }, true)}>Clear filters</button>
      </div>
    </form>
  );
}
