/**
 * Small charts in plain SVG: columns over time, a line over time, horizontal bars and a ring.
 * Each draws into a fixed view box that scales to its container's width. Labels and tooltips
 * are text nodes.
 */
import type { TimeBucket, TimeseriesPoint } from '../../types.js';
import { svg, type Child } from './dom.js';
import { bucketLabel, percent } from './format.js';

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 26, left: 44 };
const PLOT_W = WIDTH - PAD.left - PAD.right;
const PLOT_H = HEIGHT - PAD.top - PAD.bottom;

/** One series of a time chart: which field of the points, its name and its CSS class. */
export interface Series {
  key: 'incoming' | 'outgoing' | 'events' | 'notHandled' | 'revenue';
  label: string;
  className: string;
}

/** A tick step of 1, 2 or 5 × 10ⁿ that splits `max` into about four parts. */
function niceStep(max: number): number {
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough);
  return step ?? 10 * magnitude;
}

/** Y ticks from 0 to at least `max`; `integer` keeps steps whole. */
function ticks(max: number, integer: boolean): number[] {
  if (max <= 0) return [0, 1];
  let step = niceStep(max);
  if (integer) step = Math.max(1, Math.ceil(step));
  const out: number[] = [];
  for (let value = 0; value < max + step; value += step) out.push(Number(value.toPrecision(12)));
  return out;
}

function frame(className: string, label: string, ...children: Child[]): SVGSVGElement {
  return svg('svg', { class: `chart ${className}`, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label }, ...children);
}

/** Grid lines and y labels; returns them and the scale from value to y. */
function yAxis(max: number, integer: boolean, format: (value: number) => string): { axis: SVGGElement; y: (value: number) => number } {
  const marks = ticks(max, integer);
  const top = marks[marks.length - 1];
  const y = (value: number) => PAD.top + PLOT_H - (value / top) * PLOT_H;
  const axis = svg('g', { class: 'axis y-axis' });
  for (const mark of marks) {
    axis.appendChild(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(mark), y2: y(mark), class: mark === 0 ? 'baseline' : 'gridline' }));
    axis.appendChild(svg('text', { x: PAD.left - 6, y: y(mark) + 4, 'text-anchor': 'end' }, format(mark)));
  }
  return { axis, y };
}

/** Labels under about six evenly spaced buckets. */
function xAxis(points: readonly TimeseriesPoint[], bucket: TimeBucket, band: number): SVGGElement {
  const axis = svg('g', { class: 'axis x-axis' });
  const every = Math.max(1, Math.ceil(points.length / 6));
  points.forEach((point, i) => {
    if (i % every !== 0) return;
    axis.appendChild(svg('text', { x: PAD.left + band * (i + 0.5), y: HEIGHT - 8, 'text-anchor': 'middle' }, bucketLabel(point.start, bucket)));
  });
  return axis;
}

function tooltip(point: TimeseriesPoint, bucket: TimeBucket, series: readonly Series[], format: (value: number) => string): SVGTitleElement {
  const values = series.map((s) => `${s.label}: ${format(point[s.key])}`).join(', ');
  return svg('title', {}, `${bucketLabel(point.start, bucket)} — ${values}`);
}

/**
 * Columns per bucket, one per series side by side. Each bucket is a `g.bucket` (with a tooltip),
 * so there are as many as there are points.
 */
export function columnChart(points: readonly TimeseriesPoint[], bucket: TimeBucket, series: readonly Series[], label: string, className: string): SVGSVGElement {
  const max = Math.max(0, ...points.flatMap((p) => series.map((s) => p[s.key])));
  const { axis, y } = yAxis(max, true, String);
  const band = PLOT_W / Math.max(1, points.length);
  const group = Math.min(band * 0.72, 28 * series.length);
  const width = group / series.length;
  const columns = svg('g', { class: 'columns' });
  points.forEach((point, i) => {
    const left = PAD.left + band * i + (band - group) / 2;
    const g = svg('g', { class: 'bucket', 'data-start': point.start }, tooltip(point, bucket, series, String));
    series.forEach((s, j) => {
      const top = y(point[s.key]);
      g.appendChild(svg('rect', { class: s.className, x: left + j * width + 0.5, y: top, width: Math.max(1, width - 1), height: Math.max(0, PAD.top + PLOT_H - top), rx: 2 }));
    });
    columns.appendChild(g);
  });
  return frame(className, label, axis, columns, xAxis(points, bucket, band));
}

/** A line with a dot per bucket (each a `circle.point`, with a tooltip) over a light area. */
export function lineChart(points: readonly TimeseriesPoint[], bucket: TimeBucket, series: Series, label: string, className: string, format: (value: number) => string): SVGSVGElement {
  const max = Math.max(0, ...points.map((p) => p[series.key]));
  const { axis, y } = yAxis(max, false, format);
  const band = PLOT_W / Math.max(1, points.length);
  const x = (i: number) => PAD.left + band * (i + 0.5);
  const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p[series.key]).toFixed(1)}`);
  const base = y(0).toFixed(1);
  const line = svg('g', { class: series.className });
  if (points.length > 1) {
    line.appendChild(svg('path', { class: 'area', d: `M${x(0).toFixed(1)},${base} L${coords.join(' L')} L${x(points.length - 1).toFixed(1)},${base} Z` }));
    line.appendChild(svg('path', { class: 'line', d: `M${coords.join(' L')}` }));
  }
  points.forEach((p, i) => {
    line.appendChild(svg('circle', { class: 'point', cx: x(i), cy: y(p[series.key]), r: 3.5, 'data-start': p.start }, tooltip(p, bucket, [series], format)));
    // With few points, write each non-zero value above its dot.
    if (points.length <= 12 && p[series.key] !== 0) {
      line.appendChild(svg('text', { class: 'point-label', x: x(i), y: y(p[series.key]) - 9, 'text-anchor': 'middle' }, format(p[series.key])));
    }
  });
  return frame(className, label, axis, line, xAxis(points, bucket, band));
}

/** One row of a bar chart. */
export interface Bar {
  label: string;
  value: number;
  /** Extra CSS class, e.g. to mark a warning. */
  className?: string;
  /** Tooltip. */
  title: string;
}

/** Horizontal bars, largest first as given; each row is a `g.bar`. */
export function barChart(bars: readonly Bar[], label: string, className: string): SVGSVGElement {
  const width = 380; // about the width of its card, so the text stays at its size
  const row = 28;
  const height = Math.max(row, bars.length * row) + 8;
  const labelWidth = 120;
  const valueWidth = 36;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const chart = svg('svg', { class: `chart ${className}`, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  bars.forEach((bar, i) => {
    const top = 4 + i * row;
    const length = ((width - labelWidth - valueWidth) * bar.value) / max;
    const name = bar.label.length > 16 ? `${bar.label.slice(0, 15)}…` : bar.label;
    chart.appendChild(svg('g', { class: `bar ${bar.className ?? ''}`.trim() },
      svg('title', {}, bar.title),
      svg('text', { class: 'bar-label', x: labelWidth - 10, y: top + row / 2 + 4, 'text-anchor': 'end' }, name),
      svg('rect', { x: labelWidth, y: top + 5, width: Math.max(2, length), height: row - 10, rx: 3 }),
      svg('text', { class: 'bar-value', x: labelWidth + Math.max(2, length) + 6, y: top + row / 2 + 4 }, String(bar.value)),
    ));
  });
  return chart;
}

/** A ring filled to `share` (0 to 1), with the percentage in the middle. */
export function ringChart(share: number, label: string, className: string): SVGSVGElement {
  const radius = 52;
  const circumference = 2 * Math.PI * radius;
  const filled = Math.min(1, Math.max(0, share)) * circumference;
  return svg('svg', { class: `chart ring ${className}`, viewBox: '0 0 140 140', role: 'img', 'aria-label': label },
    svg('circle', { class: 'ring-track', cx: 70, cy: 70, r: radius }),
    svg('circle', { class: 'ring-value', cx: 70, cy: 70, r: radius, 'stroke-dasharray': `${filled.toFixed(2)} ${circumference.toFixed(2)}`, transform: 'rotate(-90 70 70)' }),
    svg('text', { class: 'ring-label', x: 70, y: 77, 'text-anchor': 'middle' }, percent(share)),
  );
}
