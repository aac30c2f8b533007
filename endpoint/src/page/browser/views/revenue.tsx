/**
 * Revenue: totals by currency (a revenue event that names none is in `unknown`), per day, and the
 * users who brought the most.
 */
import { useMemo } from 'preact/hooks';
import type { RevenueResponse } from '../../../types.js';
import { barOption, PALETTE } from '../charts.js';
import { Card, ChartCard, DataTable, Empty, Exports, Kpi, pending, UserLabel } from '../components.js';
import { amount, bucketLabel, count, money, plural } from '../format.js';
import { usePage, useRead } from '../hooks.js';
import { apiFilter } from '../state.js';

const currencyName = (currency: string | null) => currency ?? 'unknown';

/** The Revenue view. */
export function RevenueView() {
  const { state, hrefFor } = usePage();
  const read = useRead<RevenueResponse>('api/analytics/revenue', { ...apiFilter(state.filter), limit: 20 });
  const data = read.data;
  const currencies = (data?.byCurrency ?? []).map((c) => c.currency);
  const option = useMemo(() => {
    const days = [...new Set((data?.perDay ?? []).map((d) => d.start))].sort();
    return barOption({
      categories: days.map((day) => bucketLabel(day)),
      series: currencies.map((currency, i) => ({
        name: currencyName(currency),
        data: days.map((day) => data!.perDay.filter((d) => d.start === day && d.currency === currency).reduce((sum, d) => sum + d.total, 0)),
        color: PALETTE[i % PALETTE.length],
      })),
      format: amount,
    });
  }, [read.data]);
  return (
    <div class="grid">
      <Card title="Revenue by currency" name="revenue-totals" wide actions={<Exports path="api/analytics/revenue" params={{ limit: 1000 }} table="by-currency" file="revenue" what="revenue by currency" />}>
        {pending(read) ?? (data!.byCurrency.length === 0 ? <Empty>No revenue events in this range.</Empty> : (
          <div class="kpis">
            {data!.byCurrency.map((c) => (
              <Kpi name={`revenue-${currencyName(c.currency)}`} label={plural(c.count, 'purchase')} value={money(c.total, c.currency)} />
            ))}
          </div>
        ))}
        <p class="card-note">Amounts are summed per currency, never across currencies; an event that names no currency is under “unknown”.</p>
      </Card>
      <ChartCard
        title="Revenue per day"
        name="revenue-per-day"
        read={read}
        option={option}
        exports={<Exports path="api/analytics/revenue" params={{ limit: 1000 }} table="per-day" file="revenue" what="revenue per day" />}
        table={{
          caption: 'Revenue per day and currency',
          columns: ['Day', 'Currency', { label: 'Total', numeric: true }, { label: 'Purchases', numeric: true }],
          rows: (data?.perDay ?? []).map((d) => [bucketLabel(d.start), currencyName(d.currency), amount(d.total), count(d.count)]),
        }}
        empty="No revenue events in this range."
      />
      <Card title="Top customers" name="revenue-per-user" actions={<Exports path="api/analytics/revenue" params={{ limit: 1000 }} table="per-user" file="revenue" what="top customers" />}>
        {pending(read) ?? (data!.perUser.length === 0 ? <Empty>No revenue events in this range.</Empty> : (
          <DataTable
            name="revenue-per-user"
            caption="Users who brought the most, by currency"
            columns={['User', { label: 'Total', numeric: true }, { label: 'Purchases', numeric: true }, 'Transcript']}
            rows={data!.perUser.map((u) => [
              <UserLabel id={u.userId} name={u.userName} />,
              // The currency with the amount, as the totals above show it: one column fewer, so the table fits a phone.
              money(u.total, u.currency),
              count(u.count),
              <a href={hrefFor({ view: 'conversations', list: 'users', selection: { kind: 'user', id: u.userId }, at: undefined })} aria-label={`Transcript of ${u.userName ?? u.userId}`}>Open</a>,
            ])}
          />
        ))}
      </Card>
    </div>
  );
}
