/**
 * Providers: the generic resource page (list, create, edit, delete) plus, per provider, its health
 * (breakers per upstream model and recent failed calls) and a "Test" button that makes one small
 * call through it and shows the status, latency and upstream error.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Link } from '../components/layout.tsx';
import { Alert, Dialog, Field, Loading } from '../components/ui.tsx';
import { formatDateTime, formatMs } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { ResourcePage, type Item } from './resources.tsx';

interface Health {
  provider: string;
  status: 'healthy' | 'degraded' | 'unhealthy';
  deployments: Array<{ model: string; state: string; failures: number; retry_in_ms: number }>;
  recent_errors: Array<{ id: string; created_at: string; model: string; error_code: string | null; latency: number }>;
}

interface TestResult {
  model: string;
  ok: boolean;
  status: number | null;
  latency_ms: number;
  content: string | null;
  error: { code: string | null; message: string } | null;
}

function TestDialog(props: { provider: Item; onClose(): void }) {
  const [model, setModel] = useState(Array.isArray(props.provider.models) ? String(props.provider.models[0] ?? '') : '');
  const [state, setState] = useState<{ busy: boolean; result: TestResult | null; error: string | null }>({ busy: false, result: null, error: null });
  const run = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true, result: null, error: null });
    try {
      const result = await api.post<TestResult>(`/v1/admin/providers/${encodeURIComponent(props.provider.id)}/test`, model.trim() ? { model: model.trim() } : {});
      setState({ busy: false, result, error: null });
    } catch (e) {
      setState({ busy: false, result: null, error: (e as Error).message });
    }
  };
  const { result } = state;
  return (
    <Dialog title={`Test provider ${props.provider.id}`} onClose={props.onClose}>
      <form onSubmit={run}>
        <Field label="Upstream model" value={model} hint="One short chat call (at most 5 tokens, 10 s)." onInput={(e) => setModel(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={state.busy}>
            {state.busy ? 'Calling…' : 'Run the test'}
          </button>
        </div>
      </form>
      {state.error && <Alert kind="error">{state.error}</Alert>}
      {result && (
        <div role="status">
          <Alert kind={result.ok ? 'success' : 'error'}>
            {result.ok ? `It works: ${result.model} answered in ${formatMs(result.latency_ms)}.` : `The call failed after ${formatMs(result.latency_ms)}.`}
          </Alert>
          <dl class="facts">
            <dt>Upstream status</dt>
            <dd>{result.status ?? 'no answer'}</dd>
            {result.content != null && (
              <>
                <dt>Answer</dt>
                <dd>{result.content || '(empty)'}</dd>
              </>
            )}
            {result.error && (
              <>
                <dt>Error</dt>
                <dd>
                  {result.error.code && <span class="mono">{result.error.code} </span>}
                  {result.error.message}
                </dd>
              </>
            )}
          </dl>
        </div>
      )}
    </Dialog>
  );
}

function HealthDialog(props: { id: string; onClose(): void }) {
  const health = useLoad(() => api.get<Health>(`/v1/admin/providers/${encodeURIComponent(props.id)}/health`), [props.id]);
  return (
    <Dialog title={`Health of ${props.id}`} onClose={props.onClose}>
      {health.error && <Alert kind="error">{health.error.message}</Alert>}
      {!health.data ? (
        !health.error && <Loading />
      ) : (
        <>
          <h3>Circuit breakers</h3>
          {health.data.deployments.length === 0 ? (
            <p class="muted">No upstream model.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Upstream model</th>
                    <th scope="col">State</th>
                    <th scope="col">Failures</th>
                    <th scope="col">Probe in</th>
                  </tr>
                </thead>
                <tbody>
                  {health.data.deployments.map((d) => (
                    <tr key={d.model}>
                      <th scope="row">{d.model}</th>
                      <td>
                        <span class={`pill pill-${d.state === 'closed' ? 'healthy' : d.state === 'open' ? 'unhealthy' : 'degraded'}`}>{d.state.replace('_', '-')}</span>
                      </td>
                      <td>{d.failures}</td>
                      <td>{d.state === 'open' ? formatMs(d.retry_in_ms) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3>Recent failed calls</h3>
          {health.data.recent_errors.length === 0 ? (
            <p class="muted">None logged.</p>
          ) : (
            <ul class="plain">
              {health.data.recent_errors.map((e) => (
                <li key={e.id}>
                  <Link href={`/console/logs/${encodeURIComponent(e.id)}`}>{formatDateTime(e.created_at)}</Link> {e.model} <span class="mono">{e.error_code ?? ''}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Dialog>
  );
}

function HealthCell(props: { item: Item; onTest(): void; onDetails(): void }) {
  const health = useLoad(() => api.get<Health>(`/v1/admin/providers/${encodeURIComponent(props.item.id)}/health`), [props.item.id]);
  return (
    <div class="row-actions">
      <span class={`pill pill-${health.data?.status ?? 'unknown'}`}>{health.data?.status ?? (health.error ? 'unknown' : '…')}</span>
      <button type="button" class="small" onClick={props.onDetails} aria-label={`Health of ${props.item.id}`}>
        Health
      </button>
      <button type="button" class="small" onClick={props.onTest} aria-label={`Test ${props.item.id}`}>
        Test
      </button>
    </div>
  );
}

export function ProvidersPage() {
  const [testing, setTesting] = useState<Item | null>(null);
  const [details, setDetails] = useState<string | null>(null);
  return (
    <>
      <ResourcePage
        kind="providers"
        extras={{ columns: [{ label: 'Health', cell: (item) => <HealthCell item={item} onTest={() => setTesting(item)} onDetails={() => setDetails(item.id)} /> }] }}
      />
      {testing && <TestDialog provider={testing} onClose={() => setTesting(null)} />}
      {details && <HealthDialog id={details} onClose={() => setDetails(null)} />}
    </>
  );
}
