/**
 * Conversation flow: how sessions go from step to step (intents of what users said, and events),
 * as a Sankey diagram with the chains of steps as text; the most common paths, ranked; and a
 * funnel over steps the user picks, with the drop-off between them.
 */
import { useMemo, useState } from 'preact/hooks';
import type { FunnelResponse, IntentsResponse, PathsResponse, TrackingSummary } from '../../../types.js';
import { sankeyOption } from '../charts.js';
import { Card, ChartCard, DataTable, Empty, Exports, pending, ShareBar, Step, Steps } from '../components.js';
import { count, percent, plural, stepLabel } from '../format.js';
import { usePage, useRead, type Read } from '../hooks.js';
import { apiFilter } from '../state.js';

/** Most steps a funnel takes (as the read API). */
const MAX_STEPS = 10;

/**
 * Every chain of first steps (a path's prefixes), with the sessions that began with it and of them
 * those that took no further step (ended there); most first, longer first on a tie.
 */
export function chains(paths: PathsResponse['paths']): { steps: string[]; sessions: number; ended: number }[] {
  const counts = new Map<string, { steps: string[]; sessions: number; ended: number }>();
  for (const path of paths) {
    for (let n = 1; n <= path.steps.length; n++) {
      const steps = path.steps.slice(0, n);
      const key = JSON.stringify(steps);
      const chain = counts.get(key) ?? { steps, sessions: 0, ended: 0 };
      chain.sessions += path.sessions;
      if (n === path.steps.length) chain.ended += path.sessions;
      counts.set(key, chain);
    }
  }
  return [...counts.values()].sort((a, b) => b.sessions - a.sessions || b.steps.length - a.steps.length);
}

/** The funnel proposed before the user picks one: the most common chain of three steps or more (else of two, else one). */
function proposedSteps(paths: PathsResponse['paths']): string[] {
  const all = chains(paths);
  for (const least of [3, 2, 1]) {
    const chain = all.find((c) => c.steps.length >= least);
    if (chain) return chain.steps.slice(0, MAX_STEPS);
  }
  return [];
}

function Flow({ read }: { read: Read<PathsResponse> }) {
  const paths = read.data?.paths ?? [];
  const option = useMemo(() => (narrow: boolean) => sankeyOption(paths, stepLabel, narrow), [read.data]);
  const top = useMemo(() => chains(paths).slice(0, 15), [read.data]);
  return (
    <ChartCard
      title="How sessions flow"
      name="flow"
      read={read}
      option={option}
      wide
      height={(narrow) => (narrow ? 360 : 380)}
      exports={<Exports path="api/analytics/paths" params={{ limit: 200 }} file="paths" what="paths" />}
      table={{
        caption: 'Sessions that began with each chain of steps, and of them those that ended there',
        columns: ['Steps', { label: 'Sessions', numeric: true }, { label: 'Ended there', numeric: true }],
        rows: top.map((c) => [<Steps steps={c.steps} />, count(c.sessions), count(c.ended)]),
      }}
      empty="No session took a step in this range."
      note={read.data ? `The first steps of ${plural(read.data.sessions, 'session')}, left to right: the intents of what users said, and events. Each step shows the most common ones; the rest are grouped as “Other” (point at it to see them). “Show table” lists every chain of steps.` : undefined}
    />
  );
}

function TopPaths({ read }: { read: Read<PathsResponse> }) {
  const data = read.data;
  return (
    <Card title="Most common paths" name="paths" actions={<Exports path="api/analytics/paths" params={{ limit: 200 }} file="paths" what="paths" />}>
      {pending(read) ?? (data!.paths.length === 0 ? <Empty>No sessions in this range.</Empty> : (
        <DataTable
          name="paths"
          caption="Sessions by their first steps, most common first"
          columns={['Path', { label: 'Sessions', numeric: true }, { label: 'Share', numeric: true }]}
          rows={data!.paths.slice(0, 12).map((p) => [<Steps steps={p.steps} />, count(p.sessions), <ShareBar share={p.share} label={percent(p.share)} />])}
        />
      ))}
      <p class="card-note">A path is a session's first steps, exactly: the sessions of one path took the same steps and no others.</p>
    </Card>
  );
}

function StepPicker({ steps, choices, onChange }: { steps: string[]; choices: { intents: string[]; events: string[] }; onChange: (steps: string[]) => void }) {
  const [adding, setAdding] = useState('');
  const add = adding || choices.intents[0] || choices.events[0] || '';
  return (
    <div class="step-picker">
      <ol class="picked" aria-label="Funnel steps">
        {steps.map((step, i) => (
          <li>
            <Step step={step} />
            <button type="button" class="remove" aria-label={`Remove step ${i + 1}, ${stepLabel(step)}`} onClick={() => onChange(steps.filter((_, j) => j !== i))}>×</button>
          </li>
        ))}
      </ol>
      <form class="add-step" onSubmit={(event) => {
        event.preventDefault();
        if (add && steps.length < MAX_STEPS) onChange([...steps, add]);
      }}>
        <div class="field">
          <label for="funnel-step">Add a step</label>
          <select id="funnel-step" name="step" value={add} onChange={(event) => setAdding((event.target as HTMLSelectElement).value)}>
            {choices.intents.length > 0 ? <optgroup label="Intents">{choices.intents.map((name) => <option value={name}>{name}</option>)}</optgroup> : null}
            {choices.events.length > 0 ? <optgroup label="Events">{choices.events.map((step) => <option value={step}>{stepLabel(step)}</option>)}</optgroup> : null}
          </select>
        </div>
        <button type="submit" disabled={!add || steps.length >= MAX_STEPS}>Add step</button>
      </form>
    </div>
  );
}

function Funnel({ paths }: { paths: PathsResponse | undefined }) {
  const { state, navigate } = usePage();
  const filter = apiFilter(state.filter);
  const intents = useRead<IntentsResponse>('api/intents', { ...filter, limit: 200 });
  // Every event name seen (ratings too, which paths leave out), from the summary.
  const summary = useRead<TrackingSummary>('api/summary', filter);
  const steps = state.steps ?? (paths ? proposedSteps(paths.paths) : []);
  const read = useRead<FunnelResponse>(steps.length > 0 ? 'api/analytics/funnel' : null, { ...filter, steps: steps.join(',') });
  const choices = useMemo(() => ({
    intents: (intents.data?.intents ?? []).map((i) => i.name).sort(),
    events: Object.keys(summary.data?.byEventName ?? {}).map((name) => `event:${name}`).sort(),
  }), [intents.data, summary.data]);
  const rows = read.data?.steps ?? [];
  return (
    <Card title="Funnel" name="funnel" actions={steps.length > 0 ? <Exports path="api/analytics/funnel" params={{ steps: steps.join(',') }} file="funnel" what="the funnel" /> : null}>
      <StepPicker steps={steps} choices={choices} onChange={(next) => navigate({ steps: next }, true)} />
      {steps.length === 0 ? <Empty>Add the steps of the funnel: intents, or events.</Empty> : pending(read) ?? (
        <ol class="funnel" aria-label="Users at each step">
          {rows.map((s, i) => (
            <li class="funnel-step" data-step={s.step}>
              {i > 0 ? (
                <p class={`drop-off${s.dropOff > 0 ? ' dropped' : ''}`} data-drop-off={s.dropOff}>
                  <span aria-hidden="true">↓ </span>{percent(s.dropOff)} dropped off ({count(rows[i - 1].users - s.users)} of {count(rows[i - 1].users)})
                </p>
              ) : null}
              <div class="funnel-row">
                <span class="funnel-label">{i + 1}. <Step step={s.step} /></span>
                <span class="funnel-bar" aria-hidden="true"><span class="funnel-fill" style={{ width: `${Math.max(0.5, s.conversion * 100)}%` }} /></span>
                <span class="funnel-users">{plural(s.users, 'user')}</span>
                <span class="funnel-conversion">{percent(s.conversion)}</span>
              </div>
            </li>
          ))}
        </ol>
      )}
      <p class="card-note">Users who took each step at or after the step before it, within the range; the percentage is of the first step's users.</p>
    </Card>
  );
}

/** The Conversation flow view. */
export function FlowView() {
  const { state } = usePage();
  const paths = useRead<PathsResponse>('api/analytics/paths', { ...apiFilter(state.filter), limit: 200 });
  return (
    <div class="grid">
      <Flow read={paths} />
      <TopPaths read={paths} />
      <Funnel paths={paths.data} />
    </div>
  );
}
