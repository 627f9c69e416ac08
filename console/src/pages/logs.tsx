/**
 * Logs: every filter of the logs API (time range, key, model, status, page size) on every account's
 * calls for an admin (/v1/admin/logs), on the member's own for a member (/v1/logs),
 * paging, and a detail page with the interface the call came in through (chat, Messages, generateContent...),
 * the request and response in its shape (when request logging kept them), the
 * upstream attempts and fallbacks, timing and cost.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type List } from '../api.ts';
import { Link } from '../components/layout.tsx';
import { Alert, Field, Loading, SelectField } from '../components/ui.tsx';
import { formatDateTime, formatInt, formatMoney, formatMs } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { navigate, useLocation } from '../router.ts';
import { useSession } from '../session.ts';
import { EMPTY, fromQuery, isoOf, listUrl, type Filters } from './log-query.ts';
import { LogGuardrails } from './log-guardrails.tsx';
import type { ApiKey, LogDetail, LogItem } from '../types.ts';

/** Admins read every account's calls; members their own, through the same filters. */
export const logsPath = (isAdmin: boolean) => (isAdmin ? '/v1/admin/logs' : '/v1/logs');

export function LogsPage() {
  const { isAdmin } = useSession();
  const { search } = useLocation();
  const { filters, page } = useMemo(() => fromQuery(search), [search]);
  const [draft, setDraft] = useState<Filters>(filters);
  // Back and Forward change the query under the form: show the filters in force.
  useEffect(() => setDraft(filters), [filters]);
  const keys = useLoad(() => api.get<List<ApiKey>>('/v1/api-keys'), []);
  const logs = useLoad(
    () =>
      api.get<List<LogItem> & { meta: { total: number; page: number; page_size: number; total_pages: number } }>(logsPath(isAdmin), {
        start_time: isoOf(filters.start_time),
        end_time: isoOf(filters.end_time),
        api_key_id: filters.api_key_id,
        model: filters.model.trim(),
        status: filters.status,
        page,
        page_size: filters.page_size,
      }),
    [search],
  );
  /** Shows that list: a new history entry, or a fresh read when it is the list shown already. */
  const show = (next: Filters, nextPage: number) => {
    const url = listUrl(next, nextPage);
    if (url === `${window.location.pathname}${window.location.search}`) logs.reload();
    else navigate(url);
  };
  const set = (name: keyof Filters) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  const meta = logs.data?.meta;

  return (
    <>
      <form
        class="filters"
        aria-label="Log filters"
        onSubmit={(e) => {
          e.preventDefault();
          show(draft, 1);
        }}
      >
        <Field label="From" type="datetime-local" value={draft.start_time} onInput={set('start_time')} />
        <Field label="To" type="datetime-local" value={draft.end_time} onInput={set('end_time')} />
        <SelectField
          label="API key"
          value={draft.api_key_id}
          onChange={set('api_key_id')}
          options={[['', 'Any key'], ...(keys.data?.data ?? []).map((k): [string, string] => [k.id, `${k.name} (${k.id})`])]}
        />
        <Field label="Model" value={draft.model} onInput={set('model')} placeholder="any" />
        <SelectField label="Status" value={draft.status} onChange={set('status')} options={[['', 'Any'], ['success', 'Success'], ['error', 'Error']]} />
        <SelectField label="Per page" value={draft.page_size} onChange={set('page_size')} options={['10', '20', '50', '100'].map((n): [string, string] => [n, n])} />
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <button
            type="button"
            class="ghost"
            onClick={() => {
              setDraft(EMPTY);
              show(EMPTY, 1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {logs.error && <Alert kind="error">{logs.error.message}</Alert>}
      {!logs.data ? (
        !logs.error && <Loading />
      ) : (
        <>
          <p class="muted" role="status">
            {meta!.total === 0 ? 'No calls match.' : `${formatInt(meta!.total)} ${meta!.total === 1 ? 'call' : 'calls'}, page ${meta!.page} of ${Math.max(1, meta!.total_pages)}.`}
          </p>
          {logs.data.data.length > 0 && (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Calls, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Status</th>
                    <th scope="col">Model</th>
                    <th scope="col">Key</th>
                    <th scope="col">Tokens in / out</th>
                    <th scope="col">Latency</th>
                    <th scope="col">IP</th>
                  </tr>
                </thead>
                <tbody>
                  {logs.data.data.map((log) => (
                    <tr key={log.id}>
                      <th scope="row">
                        <Link href={`/console/logs/${encodeURIComponent(log.id)}${search}`}>{formatDateTime(log.created_at)}</Link>
                      </th>
                      <td>
                        <span class={`pill pill-${log.status}`}>{log.status}</span>
                      </td>
                      <td>{log.model}</td>
                      <td>{log.api_key_name ?? log.api_key_id ?? '—'}</td>
                      <td>
                        {formatInt(log.request_tokens)} / {formatInt(log.response_tokens)}
                      </td>
                      <td>{formatMs(log.latency)}</td>
                      <td class="mono">{log.ip}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={page <= 1} onClick={() => show(filters, page - 1)}>
              Previous page
            </button>
            <button type="button" disabled={!meta || page >= meta.total_pages} onClick={() => show(filters, page + 1)}>
              Next page
            </button>
          </nav>
        </>
      )}
    </>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Each inference interface as its clients know it; the request and response below are in its shape. */
const INTERFACES: Record<LogDetail['endpoint'], string> = {
  chat: 'OpenAI Chat Completions',
  responses: 'OpenAI Responses',
  embeddings: 'OpenAI Embeddings',
  messages: 'Anthropic Messages',
  generate_content: 'Google generateContent',
};

export function LogDetailPage(props: { id: string }) {
  const { isAdmin } = useSession();
  // The list's filters ride along in the query string: the way back shows the same list.
  const { search } = useLocation();
  const log = useLoad(() => api.get<LogDetail>(`${logsPath(isAdmin)}/${encodeURIComponent(props.id)}`), [props.id]);
  if (log.error) return <Alert kind="error">{log.error.message}</Alert>;
  if (!log.data) return <Loading />;
  const entry = log.data;
  const cost = entry.cost;
  return (
    <>
      <p>
        <Link href={`/console/logs${search}`}>{search ? '← Back to the filtered logs' : '← All logs'}</Link>
      </p>
      <dl class="facts">
        <dt>Id</dt>
        <dd class="mono">{entry.id}</dd>
        <dt>Time</dt>
        <dd>{formatDateTime(entry.created_at)}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`pill pill-${entry.status}`}>{entry.status}</span>
          {entry.error_code && <span class="mono"> {entry.error_code}</span>}
        </dd>
        {entry.error_message && (
          <>
            <dt>Error</dt>
            <dd>{entry.error_message}</dd>
          </>
        )}
        <dt>Model</dt>
        <dd>
          {entry.model}
          {entry.provider ? ` via ${entry.provider}` : ''}
        </dd>
        <dt>Interface</dt>
        <dd>{INTERFACES[entry.endpoint] ?? entry.endpoint}</dd>
        <dt>Key</dt>
        <dd>{entry.api_key_name ?? entry.api_key_id ?? '—'}</dd>
        <dt>Account / group</dt>
        <dd>
          {entry.account_id ?? '—'} / {entry.group_id ?? '—'}
        </dd>
        <dt>Tokens in / out</dt>
        <dd>
          {formatInt(entry.request_tokens)} / {formatInt(entry.response_tokens)}
        </dd>
        <dt>Time to first token</dt>
        <dd>{formatMs(entry.ttft_ms)}</dd>
        <dt>Total time</dt>
        <dd>{formatMs(entry.latency)}</dd>
        <dt>Cost</dt>
        <dd>
          {cost ? `${formatMoney(Number(cost.total), cost.currency)} (input ${cost.input}, output ${cost.output})` : '—'}
          {entry.billed === false && ' · not billed'}
        </dd>
        <dt>Stream / cache</dt>
        <dd>
          {entry.stream ? 'streamed' : 'not streamed'} · {entry.cache_hit ? 'cache hit' : 'no cache hit'}
        </dd>
        <dt>Client</dt>
        <dd>
          <span class="mono">{entry.ip}</span> {entry.user_agent ?? ''}
        </dd>
      </dl>
      <section aria-labelledby="attempts">
        <h2 id="attempts">Upstream attempts</h2>
        {entry.attempts?.length ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  {Object.keys(entry.attempts[0]!).map((k) => (
                    <th scope="col" key={k}>
                      {k.replace(/_/g, ' ')}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {entry.attempts.map((attempt, i) => (
                  <tr key={i}>
                    <th scope="row">{i + 1}</th>
                    {Object.keys(entry.attempts[0]!).map((k) => (
                      <td key={k}>{attempt[k] == null ? '—' : typeof attempt[k] === 'object' ? json(attempt[k]) : String(attempt[k])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">No upstream was called.</p>
        )}
      </section>
      <LogGuardrails verdicts={entry.guardrails} />
      <div class="grid-2">
        <section aria-labelledby="request-body">
          <h2 id="request-body">Request</h2>
          {entry.request ? <pre class="code" tabIndex={0}>{json(entry.request)}</pre> : <p class="muted">Not stored (request logging is off for this account).</p>}
        </section>
        <section aria-labelledby="response-body">
          <h2 id="response-body">Response</h2>
          {entry.response ? <pre class="code" tabIndex={0}>{json(entry.response)}</pre> : <p class="muted">Not stored.</p>}
        </section>
      </div>
    </>
  );
}
