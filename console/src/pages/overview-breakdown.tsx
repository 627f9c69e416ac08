/**
 * The overview's breakdown for its range: spend, errors and latency (p50/p95 of time to first
 * token and of total time) per model, provider, key, account or group (/v1/statistics/breakdown).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Alert, Loading, SelectField } from '../components/ui.tsx';
import { formatCompact, formatInt, formatMoney, formatMs, formatPercent } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';

interface BreakdownRow {
  id: string;
  name: string;
  request_count: number;
  error_count: number;
  total_tokens: number;
  cost: number;
  ttft_p50: number | null;
  ttft_p95: number | null;
  latency_p50: number | null;
  latency_p95: number | null;
}

interface BreakdownResult {
  by: string;
  currency: string;
  data: BreakdownRow[];
  truncated: boolean;
}

const DIMENSIONS: Array<[string, string, boolean]> = [
  ['model', 'Model', false],
  ['provider', 'Provider', false],
  ['key', 'API key', false],
  ['account', 'Account', true],
  ['group', 'Group', true],
];

const pair = (a: number | null, b: number | null) => (a == null ? '—' : `${formatMs(a)} / ${formatMs(b)}`);

export function Breakdown(props: { start: string; end: string }) {
  const { isAdmin } = useSession();
  const [by, setBy] = useState('model');
  const result = useLoad(() => api.get<BreakdownResult>('/v1/statistics/breakdown', { by, start_date: props.start, end_date: props.end }), [by, props.start, props.end]);
  const dimensions = DIMENSIONS.filter(([, , adminOnly]) => isAdmin || !adminOnly);
  const label = dimensions.find(([value]) => value === by)?.[1] ?? by;
  return (
    <section class="panel breakdown" aria-labelledby="breakdown">
      <h2 id="breakdown">Spend, errors and latency</h2>
      <div class="inline-form">
        <SelectField label="Per" value={by} onChange={(e) => setBy(e.currentTarget.value)} options={dimensions.map(([value, text]): [string, string] => [value, text])} />
      </div>
      {result.error && <Alert kind="error">{result.error.message}</Alert>}
      {!result.data ? (
        !result.error && <Loading />
      ) : result.data.data.length === 0 ? (
        <p class="muted">No calls in this range.</p>
      ) : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label={`Figures per ${label.toLowerCase()}`}>
            <table>
              <caption class="visually-hidden">
                Per {label.toLowerCase()}, {props.start} to {props.end}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{label}</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Errors</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
                  <th scope="col">First token p50 / p95</th>
                  <th scope="col">Total p50 / p95</th>
                </tr>
              </thead>
              <tbody>
                {result.data.data.map((row) => (
                  <tr key={row.id}>
                    <th scope="row">{row.name || row.id || <span class="muted">none</span>}</th>
                    <td>{formatInt(row.request_count)}</td>
                    <td>
                      {formatInt(row.error_count)}
                      {row.request_count > 0 && <span class="muted small"> ({formatPercent((row.error_count / row.request_count) * 100)})</span>}
                    </td>
                    <td>{formatCompact(row.total_tokens)}</td>
                    <td>{formatMoney(row.cost, result.data!.currency)}</td>
                    <td>{pair(row.ttft_p50, row.ttft_p95)}</td>
                    <td>{pair(row.latency_p50, row.latency_p95)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {result.data.truncated && <p class="muted small">Counted over the newest 50,000 calls of the range.</p>}
        </>
      )}
    </section>
  );
}
