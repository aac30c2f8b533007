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

/**
 * A Sankey diagram of paths: a node per step at each position (`2|OrderPizza`, so that a path
 * that comes back to a step still flows forward), a link per step to the next, as wide as the
 * sessions that took it.
 */
export function sankeyOption(paths: { steps: string[]; sessions: number }[], label: (step: string) => string, narrow = false): ChartOption {
  const nodes = new Set<string>();
  const links = new Map<string, { source: string; target: string; value: number }>();
  for (const path of paths) {
    path.steps.forEach((step, i) => {
      nodes.add(`${i}|${step}`);
      if (i === 0) return;
      const source = `${i - 1}|${path.steps[i - 1]}`;
      const target = `${i}|${step}`;
      const link = links.get(`${source}>${target}`) ?? { source, target, value: 0 };
      link.value += path.sessions;
      links.set(`${source}>${target}`, link);
    });
  }
  const linked = new Set([...links.values()].flatMap((l) => [l.source, l.target]));
  return {
    textStyle: { fontFamily: FONT },
    tooltip: { ...tooltip(), trigger: 'item' },
    series: [{
      type: 'sankey',
      // On a narrow screen the steps go down the page, so that labels have the width.
      orient: narrow ? 'vertical' : 'horizontal',
      left: 4,
      right: narrow ? 4 : 120,
      top: narrow ? 20 : 8,
      bottom: narrow ? 8 : 8,
      nodeAlign: 'left',
      nodeWidth: 12,
      nodeGap: 14,
      layoutIterations: 32,
      emphasis: { focus: 'adjacency' },
      data: [...nodes].filter((n) => linked.has(n)).map((name) => ({
        name,
        itemStyle: { color: name.includes('|event:') ? COLORS.revenue : name.endsWith('|NotHandled') ? COLORS.warn : COLORS.intent },
      })),
      links: [...links.values()],
      label: { color: COLORS.text, fontSize: 12, position: narrow ? 'top' : 'right', formatter: (p: { name: string }) => label(p.name.replace(/^\d+\|/, '')) },
      lineStyle: { color: 'source', opacity: 0.25, curveness: 0.5 },
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
export function Chart({ option, name, height = 240 }: { option: ChartOption | ((narrow: boolean) => ChartOption); name: string; height?: number }) {
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
  return <div ref={box} class={`chart chart-${name}`} data-chart={name} aria-hidden="true" style={{ height: `${height}px` }} />;
}
