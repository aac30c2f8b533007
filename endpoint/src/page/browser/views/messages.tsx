/**
 * Messages: messages in and out over time, what users say most, what the bot did not understand,
 * the buttons users clicked, and the intents with the recognizer's confidence in them.
 */
import { useMemo } from 'preact/hooks';
import type { ButtonsResponse, IntentsResponse, MessagesResponse, TimeseriesBucket, TimeseriesResponse } from '../../../types.js';
import { barOption, COLORS } from '../charts.js';
import { Card, ChartCard, DataTable, Empty, Exports, IntentTag, pending, ShareBar } from '../components.js';
import { bucketTitle, count, nounFor, percent, plural, timeBucketLabel } from '../format.js';
import { usePage, useRead } from '../hooks.js';
import { apiFilter } from '../state.js';

/** What a bucket of the chart is called. */
const BUCKET_NAMES: Record<TimeseriesBucket, string> = { minute: 'minute', hour: 'hour', day: 'day', week: 'week', month: 'month' };
const BUCKET_COLUMN: Record<TimeseriesBucket, string> = { minute: 'From', hour: 'From', day: 'Day', week: 'Week of', month: 'Month' };

function OverTime() {
  const { state } = usePage();
  // auto: minutes, hours, days, weeks or months, whichever shows the whole range in at most 60 bars.
  const read = useRead<TimeseriesResponse>('api/timeseries', { ...apiFilter(state.filter), bucket: 'auto', limit: 60 });
  const data = read.data;
  const points = data?.points ?? [];
  const option = useMemo(() => barOption({
    categories: points.map((p) => bucketTitle(p.start, data!.bucket)),
    series: [
      { name: 'Incoming', data: points.map((p) => p.incoming), color: COLORS.incoming },
      { name: 'Outgoing', data: points.map((p) => p.outgoing), color: COLORS.accent },
    ],
  }), [read.data]);
  const totalIn = points.reduce((sum, p) => sum + p.incoming, 0);
  const totalOut = points.reduce((sum, p) => sum + p.outgoing, 0);
  const first = points[0];
  const last = points.at(-1);
  // Says what is shown: the bucket width and the buckets it spans (weeks by their Monday, said so).
  const weeks = data?.bucket === 'week' ? (points.length === 1 ? 'the week of ' : 'the weeks of ') : '';
  const span = data && first && last
    ? `per ${BUCKET_NAMES[data.bucket]}, ${weeks}${points.length === 1 ? timeBucketLabel(first.start, data.bucket) : `${timeBucketLabel(first.start, data.bucket)} to ${timeBucketLabel(last.start, data.bucket)}`}`
    : '';
  return (
    <ChartCard
      title="Messages over time"
      name="messages-over-time"
      read={read}
      option={option}
      exports={<Exports path="api/timeseries" params={{ bucket: 'auto', limit: 60 }} file="messages-over-time" what="messages over time" />}
      table={{
        caption: `Messages in and out per ${data ? BUCKET_NAMES[data.bucket] : 'bucket'}`,
        columns: [data ? BUCKET_COLUMN[data.bucket] : 'From', { label: 'Incoming', numeric: true }, { label: 'Outgoing', numeric: true }, { label: 'Not handled', numeric: true }],
        rows: points.map((p) => [timeBucketLabel(p.start, data!.bucket), count(p.incoming), count(p.outgoing), count(p.notHandled)]),
      }}
      note={data ? `${count(totalIn)} incoming, ${count(totalOut)} outgoing, ${span}` : undefined}
      empty="No messages in this range."
    />
  );
}

function TopMessages({ unhandled }: { unhandled: boolean }) {
  const { state } = usePage();
  const read = useRead<MessagesResponse>('api/analytics/messages', { ...apiFilter(state.filter), limit: 20, unhandled: unhandled ? 'true' : undefined });
  const data = read.data;
  const name = unhandled ? 'unhandled' : 'top-messages';
  return (
    <Card
      title={unhandled ? 'Not understood' : 'What users say'}
      name={name}
      actions={<Exports path="api/analytics/messages" params={{ limit: 1000, unhandled: unhandled ? 'true' : undefined }} file={unhandled ? 'unhandled-messages' : 'top-messages'} what={unhandled ? 'messages not understood' : 'top messages'} />}
    >
      {pending(read) ?? (data!.messages.length === 0 ? <Empty>{unhandled ? 'Every message was handled in this range.' : 'No messages in this range.'}</Empty> : (
        <DataTable
          name={name}
          caption={unhandled ? 'Messages marked NotHandled, most frequent first' : 'Incoming messages, most frequent first'}
          columns={unhandled ? ['Message', { label: 'Times', numeric: true }, { label: 'Share', numeric: true }] : ['Message', { label: 'Times', numeric: true }, { label: 'Share', numeric: true }, 'Intent']}
          rows={data!.messages.map((m) => {
            const row = [<span class="message-text">{m.text}</span>, count(m.count), <ShareBar share={m.share} label={percent(m.share)} />];
            return unhandled ? row : [...row, <IntentTag name={m.intent} />];
          })}
        />
      ))}
      {data ? <p class="card-note">{unhandled ? `${plural(data.total, 'incoming message')} ${nounFor(data.total, 'was', 'were')} marked NotHandled.` : `${plural(data.total, 'incoming message')}, grouped by text.`}</p> : null}
    </Card>
  );
}

function Buttons() {
  const { state } = usePage();
  const read = useRead<ButtonsResponse>('api/analytics/buttons', { ...apiFilter(state.filter), limit: 20 });
  const data = read.data;
  return (
    <Card title="Buttons clicked" name="buttons" actions={<Exports path="api/analytics/buttons" params={{ limit: 1000 }} file="buttons" what="clicked buttons" />}>
      {pending(read) ?? (data!.buttons.length === 0 ? <Empty>No button was clicked in this range.</Empty> : (
        <DataTable
          name="buttons"
          caption="Buttons users clicked, most clicked first"
          columns={['Button', 'Label', { label: 'Clicks', numeric: true }, { label: 'Share', numeric: true }]}
          rows={data!.buttons.map((b) => [<code class="button-id">{b.button}</code>, b.label ?? '—', count(b.clicks), <ShareBar share={data!.total ? b.clicks / data!.total : 0} label={percent(data!.total ? b.clicks / data!.total : 0)} />])}
        />
      ))}
    </Card>
  );
}

function Intents() {
  const { state } = usePage();
  const read = useRead<IntentsResponse>('api/intents', { ...apiFilter(state.filter), limit: 20 });
  const data = read.data;
  const intents = data?.intents ?? [];
  const option = useMemo(() => barOption({
    categories: intents.map((i) => i.name),
    series: [{ name: 'Incoming messages', data: intents.map((i) => i.incoming), color: COLORS.intent }],
    horizontal: true,
    labels: true,
  }), [read.data]);
  const share = data && data.incomingMessages > 0 ? data.notHandled / data.incomingMessages : 0;
  return (
    <ChartCard
      title="Intents"
      name="intents"
      read={read}
      option={option}
      height={Math.max(120, 40 + intents.length * 30)}
      exports={<Exports path="api/intents" params={{ limit: 1000 }} file="intents" what="intents" />}
      table={{
        caption: 'Intents, most used first, with the recognizer\'s average confidence',
        columns: ['Intent', { label: 'Incoming', numeric: true }, { label: 'Outgoing', numeric: true }, { label: 'Confidence', numeric: true }],
        rows: intents.map((i) => [<IntentTag name={i.name} />, count(i.incoming), count(i.outgoing), i.confidence === null ? '—' : <ShareBar share={i.confidence} label={percent(i.confidence)} />]),
      }}
      note={data ? `${count(data.notHandled)} of ${plural(data.incomingMessages, 'incoming message')} not handled (${percent(share)}).` : undefined}
      empty="No intents in this range."
    />
  );
}

/** The Messages view. */
export function MessagesView() {
  return (
    <div class="grid">
      <OverTime />
      <Intents />
      <TopMessages unhandled={false} />
      <TopMessages unhandled />
      <Buttons />
    </div>
  );
}
