/**
 * Charts with Apache ECharts, drawn as SVG (crisp at any size and in screenshots, and styled only
 * through the DOM's style object, which the page's Content-Security-Policy allows). Only the
 * parts the page uses are bundled. Tooltips are built as DOM nodes with text in them, never from
 * HTML strings. A chart is decoration for sighted users: it is hidden from screen readers, and
 * each one has a table beside it with the same figures (see `ChartCard`).
 */
import { BarChart, PieChart, SankeyChart, type BarSeriesOption, type PieSeriesOption, type SankeySeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, type GridComponentOption, type LegendComponentOption, type TooltipComponentOption } from 'echarts/components';
import { init, use, type ComposeOption, type EChartsType } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef, useState } from 'preact/hooks';

use([BarChart, PieChart, SankeyChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/** The options the page's charts use. */
export type ChartOption = ComposeOption<BarSeriesOption | PieSeriesOption | SankeySeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption>;

/** The page's colours (as in style.css). */
export const COLORS = {
  accent: '#2f6bd8',
  soft: '#9db8ea',
  incoming: '#8fa3bf',
  intent: '#6842c2',
  warn: '#c8453c',
  ok: '#1f8a4c',
  revenue: '#a86b00',
  muted: '#6a7686',
  /** The Sankey's "ended" sinks: where sessions stop. */
  ended: '#b9c1cc',
  grid: '#edf0f4',
  text: '#1d2733',
};

/** Colours for series that have no meaning of their own (currencies, say). */
export const PALETTE = ['#2f6bd8', '#a86b00', '#1f8a4c', '#6842c2', '#c8453c', '#0f8a9b', '#8a5a44'];

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

function reducedMotion(): boolean {
  return matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function node(tag: string, className: string, text?: string): HTMLElement {
  const element = document.createElement(tag);
  element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/** One line of a tooltip: a colour swatch, a name and a value. */
function tipRow(color: unknown, name: string, value: string): HTMLElement {
  const row = node('div', 'tip-row');
  const swatch = node('span', 'tip-swatch');
  if (typeof color === 'string') swatch.style.backgroundColor = color;
  row.append(swatch, node('span', 'tip-name', name), node('span', 'tip-value', value));
  return row;
}

interface TipParam {
  seriesName?: string;
  name?: string;
  value?: unknown;
  color?: unknown;
  axisValueLabel?: string;
  dataType?: string;
  data?: { source?: string; target?: string; label?: string };
}

/** A tooltip as DOM nodes: a title and one row per series (or the item), values through `format`. */
export function tooltip(format: (value: number) => string = String, title?: (name: string) => string): TooltipComponentOption {
  return {
    confine: true,
    className: 'chart-tip',
    backgroundColor: '#ffffff',
    borderColor: '#e2e6ec',
    textStyle: { color: COLORS.text, fontFamily: FONT, fontSize: 12 },
    formatter: ((params: TipParam | TipParam[]) => {
      const list = Array.isArray(params) ? params : [params];
      const box = node('div', 'tip');
      const first = list[0];
      if (!first) return box;
      if (first.dataType === 'edge') {
        box.append(node('div', 'tip-title', `${first.data?.source?.replace(/^\d+\|/, '') ?? ''} → ${first.data?.target?.replace(/^\d+\|/, '') ?? ''}`));
        box.append(tipRow(first.color, 'sessions', format(Number(first.value))));
        return box;
      }
      const heading = first.axisValueLabel ?? first.name ?? '';
      box.append(node('div', 'tip-title', title ? title(heading) : heading));
      for (const p of list) {
        const value = Array.isArray(p.value) ? p.value[p.value.length - 1] : p.value;
        box.append(tipRow(p.color, p.seriesName && list.length > 1 ? p.seriesName : p.seriesName ?? '', format(Number(value))));
      }
      return box;
    }) as unknown as TooltipComponentOption['formatter'],
  };
}

/** Axis-bound charts' shared look. */
function axisLook(): object {
  return {
    axisLine: { lineStyle: { color: '#c9d0d9' } },
    axisTick: { show: false },
    axisLabel: { color: COLORS.muted, fontFamily: FONT, fontSize: 11, hideOverlap: true },
    splitLine: { lineStyle: { color: COLORS.grid } },
  };
}

/** One series of a bar chart. */
export interface BarSeries {
  name: string;
  data: number[];
  color: string;
  /** Series with the same stack are stacked. */
  stack?: string;
}

/** Vertical bars over `categories` (or horizontal ones, top to bottom), with a legend when there are several series. */
export function barOption({ categories, series, horizontal = false, format = String, labels = false }: {
  categories: string[];
  series: BarSeries[];
  horizontal?: boolean;
  format?: (value: number) => string;
  /** Write each bar's value on it. */
  labels?: boolean;
}): ChartOption {
  const category = { type: 'category' as const, data: categories, inverse: horizontal, ...axisLook(), axisLabel: { ...(axisLook() as { axisLabel: object }).axisLabel, width: horizontal ? 110 : undefined, overflow: 'truncate' as const } };
  const value = { type: 'value' as const, minInterval: 1, ...axisLook(), axisLabel: { ...(axisLook() as { axisLabel: object }).axisLabel, formatter: (v: number) => format(v) } };
  return {
    textStyle: { fontFamily: FONT },
    legend: series.length > 1 ? { top: 0, left: 0, icon: 'roundRect', itemWidth: 10, itemHeight: 10, textStyle: { color: COLORS.muted, fontSize: 12 } } : undefined,
    grid: { left: 4, right: horizontal ? 36 : 12, top: series.length > 1 ? 34 : 14, bottom: 4, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' },
    tooltip: { ...tooltip(format), trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: horizontal ? value : category,
    yAxis: horizontal ? category : value,
    series: series.map((s) => ({
      type: 'bar',
      name: s.name,
      data: s.data,
      stack: s.stack,
      itemStyle: { color: s.color, borderRadius: s.stack ? 0 : horizontal ? [0, 3, 3, 0] : [3, 3, 0, 0] },
      barMaxWidth: 36,
      label: labels ? { show: true, position: horizontal ? 'right' : 'top', color: COLORS.text, fontSize: 11, formatter: (p: { value: unknown }) => (Number(p.value) === 0 ? '' : format(Number(p.value))) } : undefined,
    })),
  };
}

/** A ring: each slice's share of the whole, with `center` written in the middle. */
export function ringOption(slices: { name: string; value: number; color: string }[], center: string): ChartOption {
  return {
    textStyle: { fontFamily: FONT },
    tooltip: { ...tooltip(), trigger: 'item' },
    series: [{
      type: 'pie',
      radius: ['58%', '80%'],
      avoidLabelOverlap: true,
      label: { show: true, position: 'center', formatter: () => center, fontSize: 20, fontWeight: 600, color: COLORS.text },
      labelLine: { show: false },
      emphasis: { scale: false, label: { show: true } },
      data: slices.map((s) => ({ name: s.name, value: s.value, itemStyle: { color: s.color } })),
    }],
  };
}

/** How a Sankey node is named: its position and its step (`2|OrderPizza`), or `2|` + OTHER for the steps merged at a position. */
const OTHER = '\u0000other';
/** The sink at a position (`2|` + ENDED): the sessions that ended after the step before it. */
const ENDED = '\u0000ended';

/** A Sankey diagram's nodes and links, with the steps each "other" node stands for. */
export interface FlowGraph {
  /** Each step's node with the sessions that reached it there, and each position's "ended" sink with the sessions that ended before it. */
  nodes: { name: string; value: number }[];
  links: { source: string; target: string; value: number }[];
  /** For each position's "other" node, the steps it merges and their sessions, most first. */
  merged: Map<string, { step: string; sessions: number }[]>;
  /** For each step's node, the sessions that ended there (took no further step). */
  ended: Map<string, number>;
}

/**
 * The flow of `paths` as a graph a Sankey diagram can draw readably: the first `depth` steps of
 * each path, a node per step and position (so a path that comes back to a step still flows
 * forward) as tall as the sessions that reached it there, at most `perLevel` nodes at each
 * position (the steps most sessions reached there; the rest merged into one "other" node), and a
 * link per step to the next, as wide as its sessions. Sessions that end at a step (before the last
 * position) flow into the next position's "ended" sink, so drop-off shows; those that end at the
 * last position are counted in `ended` only (the diagram stops there for every session).
 */
export function flowGraph(paths: readonly { steps: string[]; sessions: number }[], perLevel: number, depth: number): FlowGraph {
  const reached = new Map<string, number>();
  const add = (map: Map<string, number>, name: string, n: number) => map.set(name, (map.get(name) ?? 0) + n);
  for (const path of paths) path.steps.slice(0, depth).forEach((step, i) => add(reached, `${i}|${step}`, path.sessions));
  const kept = new Set<string>();
  const merged = new Map<string, { step: string; sessions: number }[]>();
  for (let i = 0; i < depth; i++) {
    const level = [...reached.entries()].filter(([name]) => name.startsWith(`${i}|`)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    // Merging a single step would only rename it.
    const keep = level.length <= perLevel + 1 ? level.length : perLevel;
    level.slice(0, keep).forEach(([name]) => kept.add(name));
    if (level.length > keep) merged.set(`${i}|${OTHER}`, level.slice(keep).map(([name, sessions]) => ({ step: name.slice(name.indexOf('|') + 1), sessions })));
  }
  const nodeOf = (i: number, step: string) => (kept.has(`${i}|${step}`) ? `${i}|${step}` : `${i}|${OTHER}`);
  const links = new Map<string, { source: string; target: string; value: number }>();
  const link = (source: string, target: string, n: number) => {
    const found = links.get(`${source}>${target}`) ?? { source, target, value: 0 };
    found.value += n;
    links.set(`${source}>${target}`, found);
  };
  const values = new Map<string, number>();
  const ended = new Map<string, number>();
  for (const path of paths) {
    const steps = path.steps.slice(0, depth);
    steps.forEach((step, i) => {
      const target = nodeOf(i, step);
      add(values, target, path.sessions);
      if (i > 0) link(nodeOf(i - 1, steps[i - 1]), target, path.sessions);
    });
    if (steps.length === 0 || path.steps.length > steps.length) continue;
    const last = nodeOf(steps.length - 1, steps[steps.length - 1]);
    add(ended, last, path.sessions);
    if (steps.length < depth) {
      add(values, `${steps.length}|${ENDED}`, path.sessions);
      link(last, `${steps.length}|${ENDED}`, path.sessions);
    }
  }
  return { nodes: [...values.entries()].map(([name, value]) => ({ name, value })), links: [...links.values()], merged, ended };
}

/**
 * A Sankey diagram of paths (see `flowGraph`), left to right: four steps of at most five nodes
 * each, or on a narrow screen three steps of three; each step's node as tall as the sessions that
 * reached it, and the sessions that ended after a step flowing into an "Ended" sink. Labels are
 * cut to fit, with the full name, the sessions (and of them those that ended there) and what an
 * "other" node merges in the tooltip.
 */
export function sankeyOption(paths: readonly { steps: string[]; sessions: number }[], label: (step: string) => string, narrow = false): ChartOption {
  const depth = narrow ? 3 : 4;
  const graph = flowGraph(paths, narrow ? 3 : 5, depth);
  const stepOf = (name: string) => name.slice(name.indexOf('|') + 1);
  const position = (name: string) => Number(name.split('|')[0]);
  const text = (name: string) => (stepOf(name) === OTHER ? `Other (${graph.merged.get(name)?.length ?? 0})` : stepOf(name) === ENDED ? 'Ended' : label(stepOf(name)));
  const tip = tooltip();
  return {
    textStyle: { fontFamily: FONT },
    tooltip: {
      ...tip,
      trigger: 'item',
      formatter: ((p: { dataType?: string; name: string; value: unknown; color?: unknown; data: { source?: string; target?: string } }) => {
        const box = node('div', 'tip');
        if (p.dataType === 'edge') {
          const target = p.data.target ?? '';
          box.append(node('div', 'tip-title', stepOf(target) === ENDED ? `${text(p.data.source ?? '')} → ended` : `${text(p.data.source ?? '')} → ${text(target)}`), tipRow(p.color, 'sessions', String(p.value)));
          return box;
        }
        if (stepOf(p.name) === ENDED) {
          box.append(node('div', 'tip-title', `Ended after step ${position(p.name)}`), tipRow(p.color, 'sessions', String(p.value)));
          return box;
        }
        box.append(node('div', 'tip-title', `Step ${position(p.name) + 1}: ${text(p.name)}`), tipRow(p.color, 'sessions', String(p.value)));
        const ended = graph.ended.get(p.name);
        if (ended !== undefined) box.append(tipRow(undefined, 'ended here', String(ended)));
        for (const m of graph.merged.get(p.name)?.slice(0, 8) ?? []) box.append(tipRow(undefined, label(m.step), String(m.sessions)));
        const rest = (graph.merged.get(p.name)?.length ?? 0) - 8;
        if (rest > 0) box.append(node('div', 'tip-name', `and ${rest} more`));
        return box;
      }) as unknown as TooltipComponentOption['formatter'],
    },
    series: [{
      type: 'sankey',
      orient: 'horizontal',
      left: 4,
      right: narrow ? 92 : 130,
      top: 8,
      bottom: 8,
      nodeAlign: 'left',
      nodeWidth: narrow ? 8 : 12,
      nodeGap: narrow ? 22 : 16,
      layoutIterations: 32,
      draggable: false,
      emphasis: { focus: 'adjacency' },
      // Each node's value is the sessions that reached it (ECharts would otherwise size it by the larger of its links in and out).
      data: graph.nodes.map(({ name, value }) => ({
        name,
        value,
        itemStyle: { color: stepOf(name) === ENDED ? COLORS.ended : stepOf(name) === OTHER ? COLORS.muted : name.includes('|event:') ? COLORS.revenue : name.endsWith('|NotHandled') ? COLORS.warn : COLORS.intent },
      })),
      links: graph.links,
      label: {
        color: COLORS.text,
        fontSize: narrow ? 11 : 12,
        position: 'right',
        width: narrow ? 84 : 118,
        overflow: 'truncate',
        ellipsis: '…',
        formatter: (p: { name: string }) => text(p.name),
      },
      lineStyle: { color: 'source', opacity: 0.28, curveness: 0.5 },
    }],
  };
}

/** Below this width (px) a chart is drawn for a narrow screen. */
const NARROW = 480;

/**
 * One chart. It follows its box's width (and the window's), and redraws when `option` changes
 * (pass a memoised option, or a function of whether the box is narrow). Hidden from screen
 * readers: give the figures as text beside it.
 */
export function Chart({ option, name, height = 240 }: { option: ChartOption | ((narrow: boolean) => ChartOption); name: string; height?: number | ((narrow: boolean) => number) }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType>();
  const [narrow, setNarrow] = useState(() => innerWidth < NARROW);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const instance = init(element, undefined, { renderer: 'svg' });
    chart.current = instance;
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        instance.resize();
        setNarrow(element.clientWidth < NARROW);
      });
    });
    observer.observe(element);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      instance.dispose();
      chart.current = undefined;
    };
  }, []);
  useEffect(() => {
    const drawn = typeof option === 'function' ? option(narrow) : option;
    chart.current?.setOption({ animation: !reducedMotion(), animationDuration: 400, ...drawn }, { notMerge: true });
  }, [option, narrow]);
  return <div ref={box} class={`chart chart-${name}`} data-chart={name} data-narrow={narrow} aria-hidden="true" style={{ height: `${typeof height === 'function' ? height(narrow) : height}px` }} />;
}
