/**
 * The page's building blocks: cards, tables, figures, export links, user names, and a chart with
 * its table. Text from records is always passed as text (JSX children and attributes), never as
 * HTML.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Params } from './api.js';
import { Chart, type ChartOption } from './charts.js';
import { usePage, type Read } from './hooks.js';
import { apiFilter } from './state.js';

/** A titled box. `actions` go at the right of its title (exports, toggles). */
export function Card({ title, name, actions, children, wide = false }: { title: string; name: string; actions?: ComponentChildren; children: ComponentChildren; wide?: boolean }) {
  const id = `card-${name}`;
  return (
    <section class={`card card-${name}${wide ? ' wide' : ''}`} aria-labelledby={id} data-card={name}>
      <header class="card-head">
        <h3 id={id}>{title}</h3>
        {actions ? <div class="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** What a card shows while its read runs or when it failed; `undefined` once there is data. */
export function pending(read: Read<unknown>): ComponentChildren | undefined {
  if (read.data !== undefined) return undefined;
  if (read.error) return <p class="empty error" role="status">Cannot read this view: {read.error.message}</p>;
  return <p class="empty loading" role="status">Loading…</p>;
}

/** A message in place of a chart or table with nothing to show. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A column of a table: its heading, and whether it holds numbers (right-aligned). */
export interface Column {
  label: string;
  numeric?: boolean;
}

/** A table with a caption; cells are text or elements. */
export function DataTable({ caption, columns, rows, name, hiddenCaption = true, visuallyHidden = false }: {
  caption: string;
  columns: (string | Column)[];
  rows: ComponentChildren[][];
  name: string;
  hiddenCaption?: boolean;
  /** Kept for screen readers only (the chart beside it shows the same). */
  visuallyHidden?: boolean;
}) {
  const cols = columns.map((c) => (typeof c === 'string' ? { label: c } : c));
  return (
    <div class={`table-scroll${visuallyHidden ? ' sr-only' : ''}`} data-table={name}>
      <table class={`data-table table-${name}`}>
        <caption class={hiddenCaption ? 'sr-only' : ''}>{caption}</caption>
        <thead>
          <tr>{cols.map((c) => <th scope="col" class={c.numeric ? 'num' : ''}>{c.label}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>{row.map((cell, i) => (i === 0 ? <th scope="row" class={cols[i]?.numeric ? 'num' : ''}>{cell}</th> : <td class={cols[i]?.numeric ? 'num' : ''}>{cell}</td>))}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A chart and the same figures as a table: the table is read by screen readers under the chart,
 * and a toggle shows it instead of the chart.
 */
export function ChartCard({ title, name, read, option, table, exports, controls, height, lead, note, empty = 'Nothing in this range.', wide = false }: {
  title: string;
  name: string;
  /** The read the figures come from: while it runs (or when it failed) the card says so. */
  read: Read<unknown>;
  option: ChartOption | ((narrow: boolean) => ChartOption);
  table: { caption: string; columns: (string | Column)[]; rows: ComponentChildren[][] };
  exports?: ComponentChildren;
  /** Choices that change what the chart shows (before the toggle). */
  controls?: ComponentChildren;
  /** In px; or a function of whether the chart's box is narrow. */
  height?: number | ((narrow: boolean) => number);
  /** Across the whole width of the view. */
  wide?: boolean;
  /** Shown above the chart (figures). */
  lead?: ComponentChildren;
  note?: ComponentChildren;
  /** Shown instead of chart and table when there is nothing to draw. */
  empty?: string;
}) {
  const [asTable, setAsTable] = useState(false);
  const waiting = pending(read);
  const nothing = table.rows.length === 0;
  const toggle = waiting || nothing ? null : (
    <button type="button" class="toggle" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
      {asTable ? 'Show chart' : 'Show table'}
    </button>
  );
  return (
    <Card title={title} name={name} wide={wide} actions={<>{controls}{toggle}{exports}</>}>
      {waiting ?? (nothing ? <Empty>{empty}</Empty> : (
        <>
          {lead}
          {asTable ? null : <Chart option={option} name={name} height={height} />}
          <DataTable caption={table.caption} columns={table.columns} rows={table.rows} name={name} visuallyHidden={!asTable} />
        </>
      ))}
      {note ? <p class="card-note">{note}</p> : null}
    </Card>
  );
}

/** Buttons that pick one of a few values (`aria-pressed` marks the one picked). */
export function Segmented<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: { value: T; label: string }[]; onChange: (value: T) => void }) {
  return (
    <div class="segmented" role="group" aria-label={label}>
      {options.map((o) => <button type="button" aria-pressed={o.value === value} onClick={() => onChange(o.value)}>{o.label}</button>)}
    </div>
  );
}

/** A figure: a big number and what it counts. */
export function Kpi({ label, value, name, hint }: { label: string; value: ComponentChildren; name: string; hint?: ComponentChildren }) {
  return (
    <div class="kpi" data-kpi={name}>
      <span class="kpi-value">{value}</span>
      <span class="kpi-label">{label}</span>
      {hint ? <span class="kpi-hint">{hint}</span> : null}
    </div>
  );
}

/**
 * Links that download a read as CSV and as JSON, with the page's filter. They are real links (the
 * address shows where the data comes from); a click fetches with the key in a header and saves
 * the file, so the key never goes in a URL. `table` picks one of a view's CSV tables (the panel
 * the links are on; the file is `file-table.csv`); the JSON holds the whole view (`file.json`).
 * `formats` leaves one out (a card with two tables offers the JSON once); `label` goes before the
 * format on the link (`Figures CSV`).
 */
export function Exports({ path, params = {}, file, what, filter = true, table, formats = ['csv', 'json'], label }: {
  path: string;
  params?: Params;
  file: string;
  what: string;
  filter?: boolean;
  table?: string;
  formats?: readonly ('csv' | 'json')[];
  label?: string;
}) {
  const { api, state, report } = usePage();
  const all = { ...(filter ? apiFilter(state.filter) : {}), ...params };
  const link = (format: 'csv' | 'json') => {
    const query = format === 'csv' ? { ...all, format: 'csv', table } : all;
    const name = format === 'csv' && table ? `${file}-${table}.csv` : `${file}.${format}`;
    return (
      <a
        class="export"
        href={api.url(path, query)}
        download={name}
        aria-label={`Download ${what} as ${format.toUpperCase()}`}
        data-format={format}
        onClick={(event) => {
          event.preventDefault();
          api.download(path, query, name).catch(report);
        }}
      >
        {label ? `${label} ` : ''}{format.toUpperCase()}
      </a>
    );
  };
  return <span class="exports">{formats.map(link)}</span>;
}

/** A user as the page shows one: the name where records carry it, with the id; the id alone otherwise. */
export function UserLabel({ id, name }: { id: string; name?: string | null }) {
  const { nameOf } = usePage();
  const shown = name ?? nameOf(id);
  if (!shown) return <span class="user" data-user={id}>{id || '(no user id)'}</span>;
  return (
    <span class="user" data-user={id}>
      <span class="user-name">{shown}</span> <span class="user-id">{id}</span>
    </span>
  );
}

/** An intent as a tag; `NotHandled` in the warning colour. */
export function IntentTag({ name }: { name: string | null }) {
  if (name === null) return <span class="muted">—</span>;
  return <span class={`tag intent-name${name === 'NotHandled' ? ' warn' : ''}`}>{name}</span>;
}

/** A path or funnel step: an intent, or an event (`event:purchase`, shown as `purchase` marked as an event). */
export function Step({ step }: { step: string }) {
  const event = step.startsWith('event:');
  return (
    <span class={`step${event ? ' event' : ''}${step === 'NotHandled' ? ' warn' : ''}`} data-step={step}>
      {event ? <><span class="sr-only">event </span>{step.slice(6)}</> : step}
    </span>
  );
}

/** Steps in order, with arrows between them. */
export function Steps({ steps }: { steps: string[] }) {
  return (
    <span class="steps" data-steps={steps.join(' > ')}>
      {steps.map((step, i) => <>{i > 0 ? <span class="arrow"><span aria-hidden="true">›</span><span class="sr-only">, then </span></span> : null}<Step step={step} /></>)}
    </span>
  );
}

/** A horizontal bar for a share (0 to 1) in a table cell, with the figure beside it. */
export function ShareBar({ share, label }: { share: number; label: string }) {
  return (
    <span class="share">
      <span class="share-track" aria-hidden="true"><span class="share-fill" style={{ width: `${Math.max(0, Math.min(1, share)) * 100}%` }} /></span>
      <span class="share-value">{label}</span>
    </span>
  );
}
