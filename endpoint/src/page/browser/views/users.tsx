/**
 * Users: active users per day, week or month (new and returning), weekly retention cohorts as a
 * heat map, and sessions (how many, how long, how many messages each, per day).
 */
import { useMemo } from 'preact/hooks';
import type { ActiveUsersResponse, ActivityInterval, RetentionResponse, SessionsResponse } from '../../../types.js';
import { barOption, COLORS } from '../charts.js';
import { Card, ChartCard, Empty, Exports, Kpi, pending, Segmented } from '../components.js';
import { bucketLabel, bucketTitle, count, duration, nounFor, percent, plural } from '../format.js';
import { usePage, useRead } from '../hooks.js';
import { apiFilter } from '../state.js';

const INTERVALS: { value: ActivityInterval; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
  { value: 'month', label: 'Month' },
];

const PERIOD: Record<ActivityInterval, string> = { day: 'Day', week: 'Week of', month: 'Month' };

function ActiveUsers() {
  const { state, navigate } = usePage();
  const { interval } = state;
  const read = useRead<ActiveUsersResponse>('api/analytics/active-users', { ...apiFilter(state.filter), interval });
  const points = read.data?.points ?? [];
  const option = useMemo(() => {
    const labels = points.length <= 16;
    const chart = barOption({
      categories: points.map((p) => bucketTitle(p.start, interval)),
      series: [
        { name: 'New', data: points.map((p) => p.new), color: COLORS.accent, stack: 'users' },
        { name: 'Returning', data: points.map((p) => p.returning), color: COLORS.soft, stack: 'users' },
      ],
    });
    // The total on top of each column.
    if (labels && Array.isArray(chart.series)) {
      chart.series[1] = { ...chart.series[1], label: { show: true, position: 'top', color: COLORS.text, fontSize: 11, formatter: (p: { dataIndex: number }) => String(points[p.dataIndex]?.active ?? '') } } as never;
    }
    return chart;
  }, [read.data]);
  return (
    <ChartCard
      title="Active users"
      name="active-users"
      read={read}
      option={option}
      height={290}
      controls={<Segmented label="Active users per" value={interval} options={INTERVALS} onChange={(value) => navigate({ interval: value }, true)} />}
      exports={<Exports path="api/analytics/active-users" params={{ interval }} file={`active-users-${interval}`} what="active users" />}
      table={{
        caption: `Active users per ${interval}: new and returning`,
        columns: [PERIOD[interval], { label: 'Active', numeric: true }, { label: 'New', numeric: true }, { label: 'Returning', numeric: true }],
        rows: points.map((p) => [bucketLabel(p.start, interval), count(p.active), count(p.new), count(p.returning)]),
      }}
      empty="No users in this range."
    />
  );
}

const WEEK = 7 * 86_400_000;

/** The Monday (00:00 UTC) of the week `ms` falls in, as the read API starts its weeks. */
function weekStart(ms: number): number {
  const monday = 4 * 86_400_000; // 1970-01-05
  return Math.floor((ms - monday) / WEEK) * WEEK + monday;
}

/** The colour step of a retention cell: 0 to 10. */
function heat(share: number): number {
  return Math.round(Math.max(0, Math.min(1, share)) * 10);
}

function Retention() {
  const { state } = usePage();
  const read = useRead<RetentionResponse>('api/analytics/retention', apiFilter(state.filter));
  const cohorts = read.data?.cohorts ?? [];
  const weeks = Array.from({ length: 8 }, (_, i) => i + 1);
  // The week in progress is counted so far: marked as such, as weeks not begun are.
  const thisWeek = weekStart(Date.now());
  const current = cohorts.some((c) => c.returned.some((_, i) => Date.parse(c.week) + (i + 1) * WEEK === thisWeek));
  return (
    <Card title="Retention by weekly cohort" name="retention" wide actions={<Exports path="api/analytics/retention" file="retention" what="retention cohorts" />}>
      {pending(read) ?? (cohorts.length === 0 ? <Empty>No new users in this range.</Empty> : (
        <div class="table-scroll" data-table="retention">
          <table class="data-table heatmap">
            <caption class="sr-only">Share of each week's new users who came back in the weeks after</caption>
            <thead>
              <tr>
                <th scope="col">First seen, week of</th>
                <th scope="col" class="num">Users</th>
                {weeks.map((w) => <th scope="col" class="num">Week {w}</th>)}
              </tr>
            </thead>
            <tbody>
              {cohorts.map((c) => (
                <tr data-cohort={c.week.slice(0, 10)}>
                  <th scope="row">{bucketLabel(c.week, 'week')}</th>
                  <td class="num">{count(c.users)}</td>
                  {c.returned.map((share, i) => (share === null
                    ? <td class="num cell future" data-week={i + 1}><span class="sr-only">not yet</span></td>
                    : Date.parse(c.week) + (i + 1) * WEEK === thisWeek
                      ? <td class={`num cell heat-${heat(share)} so-far`} data-week={i + 1} title="This week is not over: users back so far">{percent(share)}<span aria-hidden="true">…</span><span class="sr-only"> so far</span></td>
                      : <td class={`num cell heat-${heat(share)}`} data-week={i + 1}>{percent(share)}</td>))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <p class="card-note">
        Week 1 is the week after the one the users were first seen in. A hatched cell is a week that has not begun
        {current ? '; a figure with … is this week, not over yet: the users back so far' : ''}.
      </p>
    </Card>
  );
}

function Sessions() {
  const { state } = usePage();
  const read = useRead<SessionsResponse>('api/analytics/sessions', apiFilter(state.filter));
  const data = read.data;
  const perDay = data?.perDay ?? [];
  const option = useMemo(() => barOption({
    categories: perDay.map((d) => bucketLabel(d.start)),
    series: [{ name: 'Sessions', data: perDay.map((d) => d.sessions), color: COLORS.accent }],
  }), [read.data]);
  return (
    <ChartCard
      title="Sessions"
      name="sessions"
      read={read}
      option={option}
      height={200}
      lead={data ? (
        <div class="kpis">
          <Kpi name="sessions" label={nounFor(data.sessions, 'session')} value={count(data.sessions)} hint={plural(data.users, 'user')} />
          <Kpi name="messages-per-session" label={nounFor(data.messagesPerSession, 'message per session', 'messages per session')} value={data.messagesPerSession.toLocaleString(undefined, { maximumFractionDigits: 1 })} />
          <Kpi name="average-length" label="average length" value={duration(data.averageLengthSeconds)} />
          <Kpi name="median-length" label="median length" value={duration(data.medianLengthSeconds)} />
        </div>
      ) : null}
      exports={<>
        <Exports path="api/analytics/sessions" table="summary" file="sessions" what="session figures" label="Figures" formats={['csv']} />
        <Exports path="api/analytics/sessions" table="per-day" file="sessions" what="sessions per day" label="Per day" formats={['csv']} />
        <Exports path="api/analytics/sessions" file="sessions" what="sessions" formats={['json']} />
      </>}
      table={{ caption: 'Sessions started each day', columns: ['Day', { label: 'Sessions', numeric: true }], rows: perDay.map((d) => [bucketLabel(d.start), count(d.sessions)]) }}
      note="A session is one user in one conversation, with no gap over 30 minutes. Bars: sessions started each day."
      empty="No sessions in this range."
    />
  );
}

/** The Users view. */
export function UsersView() {
  return (
    <div class="grid">
      <ActiveUsers />
      <Sessions />
      <Retention />
    </div>
  );
}
