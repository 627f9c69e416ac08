/**
 * The log list's filter form: time range, key, model (a picker of the models this account may call
 * and those its logs name), status, endpoint and error code, and for admins account and provider.
 */
import { useId } from 'preact/hooks';
import { api, type List } from '../api.ts';
import { Field, SelectField } from '../components/ui.tsx';
import { dayIn, daysBefore } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ENDPOINTS, type Filters } from './log-query.ts';
import type { ApiKey, ModelsResult } from '../types.ts';

/** Codes a failed call commonly carries, offered as suggestions (any code can be typed). */
const COMMON_ERRORS = [
  'upstream_unavailable', 'upstream_timeout', 'upstream_error', 'rate_limit_exceeded', 'quota_exceeded', 'model_not_found',
  'model_not_permitted', 'invalid_value', 'context_length_exceeded', 'client_closed', 'server_error',
];

const any = (label: string, items: Array<[string, string]>): Array<[string, string]> => [['', label], ...items];

/** Model ids to pick from: those the account may call and those its calls of the last year used. */
async function modelChoices(): Promise<string[]> {
  const today = dayIn('UTC');
  const [open, used] = await Promise.all([
    api.get<List<{ id: string }>>('/api/v1/models').catch(() => ({ data: [] as Array<{ id: string }> })),
    api.get<ModelsResult>('/v1/statistics/models', { start_date: daysBefore(today, 365), end_date: today }).catch(() => ({ data: [] as ModelsResult['data'] })),
  ]);
  return [...new Set([...open.data.map((m) => m.id), ...used.data.map((m) => m.model)])].sort();
}

export function LogFilters(props: { draft: Filters; onChange(next: Filters): void; onApply(): void; onClear(): void }) {
  const { isAdmin } = useSession();
  const { draft } = props;
  const errorList = useId();
  const keys = useLoad(() => api.get<List<ApiKey>>('/v1/api-keys'), []);
  const models = useLoad(modelChoices, []);
  const accounts = useLoad(() => (isAdmin ? api.get<List<{ id: string; email: string }>>('/v1/admin/users') : Promise.resolve(null)), [isAdmin]);
  const providers = useLoad(() => (isAdmin ? api.get<List<{ id: string; name: string }>>('/v1/admin/providers') : Promise.resolve(null)), [isAdmin]);
  const set = (name: keyof Filters) => (event: Event) => props.onChange({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  const modelIds = models.data ?? [];
  // A model in the URL that no list names any more still shows as chosen.
  const modelOptions = (draft.model && !modelIds.includes(draft.model) ? [draft.model, ...modelIds] : modelIds).map((id): [string, string] => [id, id]);
  return (
    <form
      class="filters"
      aria-label="Log filters"
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply();
      }}
    >
      <Field label="From" type="datetime-local" value={draft.start_time} onInput={set('start_time')} />
      <Field label="To" type="datetime-local" value={draft.end_time} onInput={set('end_time')} />
      <SelectField
        label="API key"
        value={draft.api_key_id}
        onChange={set('api_key_id')}
        options={any('Any key', (keys.data?.data ?? []).map((k): [string, string] => [k.id, `${k.name} (${k.id})`]))}
      />
      <SelectField label="Model" value={draft.model} onChange={set('model')} options={any('Any model', modelOptions)} />
      <SelectField label="Status" value={draft.status} onChange={set('status')} options={[['', 'Any'], ['success', 'Success'], ['error', 'Error']]} />
      <SelectField label="Endpoint" value={draft.endpoint} onChange={set('endpoint')} options={any('Any endpoint', ENDPOINTS)} />
      <div class="field">
        <label for={`${errorList}-input`}>Error code</label>
        <input id={`${errorList}-input`} list={errorList} value={draft.error_code} placeholder="any" onInput={set('error_code')} autoComplete="off" />
        <datalist id={errorList}>
          {COMMON_ERRORS.map((code) => (
            <option value={code} key={code} />
          ))}
        </datalist>
      </div>
      {isAdmin && (
        <SelectField
          label="Account"
          value={draft.account_id}
          onChange={set('account_id')}
          options={any('Any account', (accounts.data?.data ?? []).map((a): [string, string] => [a.id, `${a.email} (${a.id})`]))}
        />
      )}
      {isAdmin && (
        <SelectField
          label="Provider"
          value={draft.provider}
          onChange={set('provider')}
          options={any('Any provider', (providers.data?.data ?? []).map((p): [string, string] => [p.id, `${p.name} (${p.id})`]))}
        />
      )}
      <SelectField label="Per page" value={draft.page_size} onChange={set('page_size')} options={['10', '20', '50', '100'].map((n): [string, string] => [n, n])} />
      <div class="actions">
        <button type="submit" class="primary">
          Apply filters
        </button>
        <button type="button" class="ghost" onClick={props.onClear}>
          Clear
        </button>
      </div>
    </form>
  );
}
