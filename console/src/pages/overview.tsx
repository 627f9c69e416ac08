/**
 * Overview: today's and a chosen range's requests, tokens, cost and error rate (from the logs), daily usage and cost charts, each model's share, system health and the last reload,
 * and the CSV export of the statistics.
 */
import { useId, useMemo, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DailyChart, type Series } from '../components/chart.tsx';
import { Alert, Loading } from '../components/ui.tsx';
import { dayIn, daysBefore, formatCompact, formatDateTime, formatDuration, formatInt, formatMoney, formatPercent } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { logsPath } from './logs.tsx';
import { Breakdown } from './overview-breakdown.tsx';
import { Export } from './overview-export.tsx';
import type { CostResult, Health, ModelsResult, Settings, SystemStatus, UsageResult } from '../types.ts';

interface Figures {
  usage: UsageResult;
  cost: CostResult;
  models: ModelsResult;
  errors: number;
}

async function figures(start: string, end: string, isAdmin: boolean, timeZone: string): Promise<Figures> {
  const range = { start_date: start, end_date: end, group_by: 'day' };
  const [usage, cost, models, errors] = await Promise.all([
    api.get<UsageResult>('/v1/statistics/usage', range),
    api.get<CostResult>('/v1/statistics/cost', range),
    api.get<ModelsResult>('/v1/statistics/models', { start_date: start, end_date: end }),
    errorCount(start, end, isAdmin, timeZone),
  ]);
  return { usage, cost, models, errors };
}

/**
 * Failed calls in the range: the total of the logs filtered on errors (the statistics count no
 * errors). For a member both this and the statistics' request count cover their own calls only
 * (/v1/logs and /v1/statistics are scoped to the caller's account), so the rate shows nobody else's.
 */
async function errorCount(start: string, end: string, isAdmin: boolean, timeZone: string): Promise<number> {
  const offset = zoneOffset(timeZone);
  const list = await api.get<{ meta: { total: number } }>(logsPath(isAdmin), {
    status: 'error',
    start_time: `${start}T00:00:00${offset}`,
    end_time: `${end}T23:59:59.999${offset}`,
    page_size: 1,
  });
  return list.meta.total;
}

/** The zone's current UTC offset as ±HH:MM (the logs filter takes ISO times). */
function zoneOffset(timeZone: string): string {
  try {
    const part = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName');
    const match = /GMT([+-]\d{2}:\d{2})/.exec(part?.value ?? '');
    return match ? match[1]! : 'Z';
  } catch {
    return 'Z';
  }
}

function everyDay(start: string, end: string): string[] {
  const days: string[] = [];
  for (let day = start; day <= end && days.length < 400; day = daysBefore(day, -1)) days.push(day);
  return days;
}

function Cards(props: { title: string; data: Figures; currency: string }) {
  const { usage, cost, errors } = props.data;
  const requests = usage.summary.request_count;
  // An id of its own: the title ("2026-11-13 to 2026-11-26") holds spaces, which an id cannot.
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      <dl class="cards">
        <div>
          <dt>Requests</dt>
          <dd>{formatInt(requests)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{formatCompact(usage.summary.total_tokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatMoney(cost.summary.total_cost, cost.currency ?? props.currency)}</dd>
        </div>
        <div>
          <dt>Error rate</dt>
          <dd>{requests ? formatPercent((errors / requests) * 100) : '—'}</dd>
        </div>
      </dl>
    </section>
  );
}

/** A model id that may wrap after each `/` ("mock/" "gpt-4o"), where browsers do not break. */
const breakable = (id: string) => id.split('/').flatMap((part, i, all) => (i < all.length - 1 ? [`${part}/`, <wbr key={i} />] : [part]));

function Charts(props: { data: Figures; start: string; end: string; currency: string }) {
  const { usage, cost, models } = props.data;
  const days = useMemo(() => everyDay(props.start, props.end), [props.start, props.end]);
  const usageSeries = useMemo<Series[]>(() => {
    const byDay = new Map(usage.data.map((row) => [row.date, row]));
    return [
      { label: 'Tokens', kind: 'bars', color: '#2f6fde', values: days.map((d) => byDay.get(d)?.total_tokens ?? 0), format: formatCompact },
      { label: 'Requests', kind: 'line', color: '#b3401b', scale: 'y2', values: days.map((d) => byDay.get(d)?.request_count ?? 0), format: formatInt },
    ];
  }, [usage, days]);
  const costSeries = useMemo<Series[]>(() => {
    const byDay = new Map(cost.data.map((row) => [row.date, row]));
    return [{ label: 'Cost', kind: 'bars', color: '#1d7a55', values: days.map((d) => byDay.get(d)?.total_cost ?? 0), format: (v) => formatMoney(v, cost.currency ?? props.currency) }];
  }, [cost, days]);
  return (
    <div class="grid-2">
      <DailyChart title="Usage per day" days={days} series={usageSeries} />
      <DailyChart title="Cost per day" days={days} series={costSeries} />
      <section class="panel" aria-labelledby="model-share">
        <h2 id="model-share">Share of tokens by model</h2>
        {models.data.length === 0 ? (
          <p class="muted">No calls in this range.</p>
        ) : (
          <div class="table-wrap">
            <table class="share">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Share</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Cost</th>
                </tr>
              </thead>
              <tbody>
                {models.data.map((m) => (
                  <tr key={m.model}>
                    <th scope="row">{breakable(m.model)}</th>
                    <td>
                      <span class="share-bar" style={{ width: `${Math.max(2, m.percentage) / 25}rem` }} />
                      {formatPercent(m.percentage)}
                    </td>
                    <td>{formatInt(m.request_count)}</td>
                    <td>{formatMoney(m.cost, cost.currency ?? props.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <SystemPanel />
    </div>
  );
}

function SystemPanel() {
  const system = useLoad(async () => {
    const [health, status] = await Promise.all([
      fetch('/v1/system/health').then((r) => r.json() as Promise<Health>),
      api.get<SystemStatus>('/v1/system/status'),
    ]);
    return { health, status };
  }, []);
  if (system.error) return <Alert kind="error">{system.error.message}</Alert>;
  if (!system.data) return <Loading />;
  const { health, status } = system.data;
  const reload = status.last_reload;
  return (
    <section class="panel" aria-labelledby="system">
      <h2 id="system">System</h2>
      <p>
        <span class={`pill pill-${health.status}`}>{health.status}</span> version {status.version}, up {formatDuration(status.uptime)}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Component</th>
            <th scope="col">State</th>
            <th scope="col">Latency</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(health.components).map(([name, state]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <span class={`pill pill-${state}`}>{state.replace('_', ' ')}</span>
              </td>
              <td>{health.latency[name] != null ? `${health.latency[name]} ms` : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Last configuration reload</h3>
      {!reload ? (
        <p class="muted">No reload since start.</p>
      ) : reload.ok ? (
        <p>Applied {formatDateTime(reload.at)}.{reload.restart_required?.length ? ` Restart needed for: ${reload.restart_required.join(', ')}.` : ''}</p>
      ) : (
        <Alert kind="error">
          The edit of {formatDateTime(reload.at)} was refused; the previous configuration is still in force.
          <pre class="mono">{reload.error}</pre>
        </Alert>
      )}
    </section>
  );
}

export function OverviewPage() {
  const { isAdmin } = useSession();
  const settings = useLoad(() => api.get<Settings>('/v1/settings'), []);
  const timeZone = settings.data?.account.timezone ?? 'UTC';
  const currency = settings.data?.account.currency ?? 'CNY';
  const today = dayIn(timeZone);
  const [range, setRange] = useState<{ start: string; end: string } | null>(null);
  const [draft, setDraft] = useState<{ start: string; end: string } | null>(null);
  const current = range ?? { start: daysBefore(today, 13), end: today };
  const form = draft ?? current;
  const todayFigures = useLoad(() => (settings.data ? figures(today, today, isAdmin, timeZone) : new Promise<Figures>(() => {})), [settings.data, today]);
  const rangeFigures = useLoad(() => (settings.data ? figures(current.start, current.end, isAdmin, timeZone) : new Promise<Figures>(() => {})), [settings.data, current.start, current.end]);
  const rangeError = form.start > form.end ? 'The start must not be after the end.' : null;

  return (
    <>
      {settings.error && <Alert kind="error">{settings.error.message}</Alert>}
      {todayFigures.data ? <Cards title="Today" data={todayFigures.data} currency={currency} /> : <Loading />}
      <form
        class="inline-form range"
        aria-label="Date range"
        onSubmit={(e) => {
          e.preventDefault();
          if (!rangeError) setRange(form);
        }}
      >
        <div class="field">
          <label for="range-start">From</label>
          <input id="range-start" type="date" value={form.start} max={today} onInput={(e) => setDraft({ ...form, start: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="range-end">To</label>
          <input id="range-end" type="date" value={form.end} max={today} aria-describedby={rangeError ? 'range-error' : undefined} onInput={(e) => setDraft({ ...form, end: e.currentTarget.value })} />
        </div>
        <button type="submit">Show</button>
        {[7, 30, 90].map((n) => (
          <button
            type="button"
            class="ghost"
            key={n}
            onClick={() => {
              const next = { start: daysBefore(today, n - 1), end: today };
              setDraft(null);
              setRange(next);
            }}
          >
            Last {n} days
          </button>
        ))}
        {rangeError && (
          <p id="range-error" class="field-error">
            {rangeError}
          </p>
        )}
      </form>
      {rangeFigures.error && <Alert kind="error">{rangeFigures.error.message}</Alert>}
      {rangeFigures.data ? (
        <>
          <Cards title={`${current.start} to ${current.end}`} data={rangeFigures.data} currency={currency} />
          <Charts data={rangeFigures.data} start={current.start} end={current.end} currency={currency} />
        </>
      ) : (
        !rangeFigures.error && <Loading />
      )}
      <Breakdown start={current.start} end={current.end} />
      <Export start={current.start} end={current.end} />
    </>
  );
}
