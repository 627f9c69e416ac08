/**
 * API keys: list, create (the full key shown once, with a copy button), edit name, models and rate
 * limit, rotate, deactivate or activate, delete. Members see their own keys only (the API's rule).
 */
import { useState } from 'preact/hooks';
import { api, ApiError, type List } from '../api.ts';
import { ActionsHeader, Alert, Dialog, errorFor, Field, Loading, QuotaBar, RowActions, SecretOnce, SelectField } from '../components/ui.tsx';
import { budgetBody, expiresText, initialBudget, PERIODS, type Budget } from './key-budget.ts';
import { formatDateTime, formatInt } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import type { ApiKey } from '../types.ts';

const listOf = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

function KeyForm(props: { key_?: ApiKey; onSaved(key: ApiKey): void; onCancel(): void }) {
  const existing = props.key_;
  const [name, setName] = useState(existing?.name ?? '');
  const [models, setModels] = useState(existing?.permissions.models.join(', ') ?? '');
  const [rateLimit, setRateLimit] = useState(String(existing?.permissions.rate_limit ?? 0));
  const [budget, setBudget] = useState<Budget>(initialBudget(existing));
  const setBudgetField = (name: keyof Budget) => (e: Event) => setBudget({ ...budget, [name]: (e.currentTarget as HTMLInputElement).value });
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    // The API refuses an empty name too (400 naming `name`); say so before the round trip.
    if (name.trim() === '') {
      setError(new ApiError(400, 'Enter a name for the key.', 'invalid_value', 'name'));
      return;
    }
    setBusy(true);
    setError(null);
    const rate = rateLimit.trim() === '' ? 0 : Number(rateLimit);
    const body = { name, permissions: { models: listOf(models), rate_limit: rate, ...budgetBody(budget, !!existing) } };
    try {
      props.onSaved(existing ? await api.put<ApiKey>(`/v1/api-keys/${encodeURIComponent(existing.id)}`, body) : await api.post<ApiKey>('/v1/api-keys', body));
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const fieldNames = ['name', 'permissions.models', 'permissions.rate_limit', 'permissions.quota_limit', 'permissions.quota_period', 'permissions.expires_at'];
  const general = error && !fieldNames.some((f) => errorFor(f, error)) ? error.message : null;
  return (
    <form onSubmit={submit} noValidate>
      <Field label="Name" required value={name} onInput={(e) => setName(e.currentTarget.value)} error={errorFor('name', error)} />
      <Field
        label="Models"
        hint="Comma-separated model ids or patterns; empty allows every model."
        value={models}
        onInput={(e) => setModels(e.currentTarget.value)}
        error={errorFor('permissions.models', error)}
      />
      <Field
        label="Rate limit (requests per minute)"
        hint="0 means no per-key limit."
        inputMode="numeric"
        value={rateLimit}
        onInput={(e) => setRateLimit(e.currentTarget.value)}
        error={errorFor('permissions.rate_limit', error)}
      />
      <div class="form-grid">
        <Field
          label="Token quota"
          hint="Prompt + completion tokens; 0 means no per-key budget."
          inputMode="numeric"
          value={budget.quota_limit}
          onInput={setBudgetField('quota_limit')}
          error={errorFor('permissions.quota_limit', error)}
        />
        <SelectField label="Quota starts over" value={budget.quota_period} onChange={setBudgetField('quota_period')} options={PERIODS} error={errorFor('permissions.quota_period', error)} />
      </div>
      <Field
        label="Expires"
        type="datetime-local"
        hint="Your local time; empty: never. After it the key is refused."
        value={budget.expires_at}
        onInput={setBudgetField('expires_at')}
        error={errorFor('permissions.expires_at', error)}
      />
      {general && <Alert kind="error">{general}</Alert>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {existing ? 'Save' : 'Create key'}
        </button>
        <button type="button" class="ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type Mode = { kind: 'create' } | { kind: 'edit'; key: ApiKey } | { kind: 'reveal'; title: string; key: ApiKey } | null;

/** How many platform scopes there are (src/auth/scopes.ts): a key holding them all is not limited. */
const PLATFORM_SCOPE_COUNT = 5;

/** A key's scopes (those of the OAuth token that created it): `all` when they limit nothing. */
function scopesText(scopes: string[] | null): string {
  return !scopes || scopes.length >= PLATFORM_SCOPE_COUNT ? 'all' : scopes.join(', ');
}

export function KeysPage() {
  const { readOnly, isAdmin } = useSession();
  const keys = useLoad(() => api.get<List<ApiKey>>('/v1/api-keys'), []);
  const [mode, setMode] = useState<Mode>(null);
  const [notice, setNotice] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  const act = async (action: () => Promise<void>, done: string) => {
    setNotice(null);
    try {
      await action();
      setNotice({ kind: 'success', text: done });
      keys.reload();
    } catch (e) {
      setNotice({ kind: 'error', text: (e as Error).message });
    }
  };
  const rotate = (key: ApiKey) =>
    confirm(`Rotate "${key.name}"? The current key stops working at once.`) &&
    act(async () => {
      const rotated = await api.post<ApiKey>(`/v1/api-keys/${encodeURIComponent(key.id)}/rotate`);
      setMode({ kind: 'reveal', title: `New key for ${key.name}`, key: rotated });
    }, `Key "${key.name}" rotated.`);
  const toggle = (key: ApiKey) =>
    act(
      () => api.put(`/v1/api-keys/${encodeURIComponent(key.id)}`, { status: key.status === 'active' ? 'inactive' : 'active' }).then(() => undefined),
      `Key "${key.name}" ${key.status === 'active' ? 'deactivated' : 'activated'}.`,
    );
  const remove = (key: ApiKey) =>
    confirm(`Delete "${key.name}"? Calls with it will be refused.`) && act(() => api.del(`/v1/api-keys/${encodeURIComponent(key.id)}`), `Key "${key.name}" deleted.`);

  return (
    <>
      <div class="toolbar">
        <button type="button" class="primary" disabled={!!readOnly} onClick={() => setMode({ kind: 'create' })}>
          Create key
        </button>
      </div>
      {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
      {keys.error && <Alert kind="error">{keys.error.message}</Alert>}
      {!keys.data ? (
        !keys.error && <Loading />
      ) : keys.data.data.length === 0 ? (
        <p class="muted">No API keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                {isAdmin && <th scope="col">Account</th>}
                <th scope="col">Status</th>
                <th scope="col">Models</th>
                <th scope="col">Rate limit</th>
                <th scope="col">Budget</th>
                <th scope="col">Scopes</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens</th>
                <th scope="col">Created</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td class="mono">{key.key}</td>
                  {isAdmin && <td>{key.account_id}</td>}
                  <td>
                    <span class={`pill pill-${key.status}`}>{key.status}</span>
                  </td>
                  <td>{key.permissions.models.length ? key.permissions.models.join(', ') : 'all'}</td>
                  <td>{key.permissions.rate_limit ? `${key.permissions.rate_limit}/min` : 'none'}</td>
                  <td>
                    <QuotaBar used={key.quota_used ?? 0} limit={key.permissions.quota_limit ?? 0} label={`Quota of ${key.name}`} />
                    <span class="muted small budget-note">
                      {key.permissions.quota_period ? `${key.permissions.quota_period} · ` : ''}
                      expires {expiresText(key.permissions.expires_at)}
                    </span>
                  </td>
                  <td>{scopesText(key.scopes)}</td>
                  <td>{formatInt(key.usage.total_requests)}</td>
                  <td>{formatInt(key.usage.total_tokens)}</td>
                  <td>{formatDateTime(key.created_at)}</td>
                  <RowActions
                    target={key.name}
                    disabled={!!readOnly}
                    actions={[
                      { label: 'Edit', run: () => setMode({ kind: 'edit', key }) },
                      { label: 'Rotate', run: () => rotate(key) },
                      { label: key.status === 'active' ? 'Deactivate' : 'Activate', run: () => toggle(key) },
                      { label: 'Delete', run: () => remove(key), danger: true },
                    ]}
                  />
                </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {mode?.kind === 'create' && (
          <Dialog title="Create an API key" onClose={() => setMode(null)}>
            <KeyForm
              onCancel={() => setMode(null)}
              onSaved={(key) => {
                setMode({ kind: 'reveal', title: `Key "${key.name}" created`, key });
                keys.reload();
              }}
            />
          </Dialog>
        )}
        {mode?.kind === 'edit' && (
          <Dialog title={`Edit ${mode.key.name}`} onClose={() => setMode(null)}>
            <KeyForm
              key_={mode.key}
              onCancel={() => setMode(null)}
              onSaved={(key) => {
                setMode(null);
                setNotice({ kind: 'success', text: `Key "${key.name}" saved.` });
                keys.reload();
              }}
            />
          </Dialog>
        )}
        {mode?.kind === 'reveal' && (
          <Dialog title={mode.title} onClose={() => setMode(null)}>
            <SecretOnce label="Your new API key" value={mode.key.key} />
            <div class="actions">
              <button type="button" class="primary" onClick={() => setMode(null)}>
                Done
              </button>
            </div>
          </Dialog>
        )}
      </>
    );
  }
  