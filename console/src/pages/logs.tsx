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
import { CodeDialog } from '../components/code-dialog.tsx';
import { Alert, Loading } from '../components/ui.tsx';
import { formatDateTime, formatInt, formatMoney, formatMs } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { navigate, useLocation } from '../router.ts';
import { useSession } from '../session.ts';
import { LogExport } from './log-export-button.tsx';
import { LogFilters } from './log-filters.tsx';
import { apiQuery, EMPTY, fromQuery, listUrl, type Filters } from './log-query.ts';
import { LogGuardrails } from './log-guardrails.tsx';
import { loggedChatRequest } from './playground-log.ts';
import type { LogDetail, LogItem } from '../types.ts';

/** Admins read every account's calls; members their own, through the same filters. */
export const logsPath = (isAdmin: boolean) => (isAdmin ? '/v1/admin/logs' : '/v1/logs');

export function LogsPage() {
  const { isAdmin } = useSession();
  const { search } = useLocation();
  const { filters, page } = useMemo(() => fromQuery(search), [search]);
  const [draft, setDraft] = useState<Filters>(filters);
  // Back and Forward change the query under the form: show the filters in force.
  useEffect(() => setDraft(filters), [filters]);
  const logs = useLoad(
    () =>
      api.get<List<LogItem> & { meta: { total: number; page: number; page_size: number; total_pages: number } }>(logsPath(isAdmin), {
        ...apiQuery(filters),
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
  const meta = logs.data?.meta;

  return (
    <>
      <LogFilters
        draft={draft}
        onChange={setDraft}
        onApply={() => show(draft, 1)}
        onClear={() => {
          setDraft(EMPTY);
          show(EMPTY, 1);
        }}
      />
      <LogExport filters={filters} />
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
                    <th scope="col">Error</th>
                    <th scope="col">Key</th>
                    <th scope="col">Tokens in / out</th>
                    <th scope="col">Cost</th>
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
                      <td>
                        {log.model}
                        {log.provider ? <span class="muted small"> via {log.provider}</span> : null}
                      </td>
                      <td class="mono">{log.error_code ?? '—'}</td>
                      <td>{log.api_key_name ?? log.api_key_id ?? '—'}</td>
                      <td>
                        {formatInt(log.request_tokens)} / {formatInt(log.response_tokens)}
                      </td>
                      <td>{log.cost ? formatMoney(Number(log.cost.total), log.cost.currency) : '—'}</td>
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
  const [code, setCode] = useState(false);
  if (log.error) return <Alert kind="error">{log.error.message}</Alert>;
  if (!log.data) return <Loading />;
  const entry = log.data;
  const cost = entry.cost;
  const chat = loggedChatRequest(entry);
  return (
    <>
      <p>
        <Link href={`/console/logs${search}`}>{search ? '← Back to the filtered logs' : '← All logs'}</Link>
      </p>
      {chat && (
        <div class="actions detail-actions">
          <Link class="button" href={`/console/playground?log=${encodeURIComponent(entry.id)}`}>
            Open in the playground
          </Link>
          <button type="button" onClick={() => setCode(true)}>
            Copy as curl
          </button>
        </div>
      )}
      {code && chat && <CodeDialog body={chat} onClose={() => setCode(false)} />}
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
