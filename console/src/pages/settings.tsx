/**
 * The account's settings (GET/PUT /v1/settings): only the fields that changed are sent, and a
 * refused value is shown beside its field (the API names it in `param`, e.g. account.timezone).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Alert, errorFor, Field, Loading } from '../components/ui.tsx';
import { forgetDraft, readDraft, writeDraft } from '../draft.ts';
import { useLoad } from '../hooks.ts';
import type { Settings } from '../types.ts';

type Kind = 'text' | 'number' | 'boolean' | 'list';
const FIELDS: Array<{ group: keyof Settings; legend: string; fields: Array<{ name: string; label: string; kind: Kind; hint?: string }> }> = [
  {
    group: 'account',
    legend: 'Account',
    fields: [
      { name: 'timezone', label: 'Time zone', kind: 'text', hint: 'IANA name, e.g. Europe/Berlin. Statistics count days in it.' },
      { name: 'language', label: 'Language', kind: 'text', hint: 'BCP 47, e.g. en or zh-CN.' },
      { name: 'currency', label: 'Currency', kind: 'text', hint: 'ISO 4217, e.g. CNY or USD.' },
    ],
  },
  {
    group: 'notifications',
    legend: 'Notifications',
    fields: [
      { name: 'email_usage_alert', label: 'Email me at 80% and 100% of the group quota', kind: 'boolean' },
      { name: 'email_low_balance', label: 'Email me when the balance runs low', kind: 'boolean' },
      { name: 'email_weekly_report', label: 'Weekly report by email', kind: 'boolean' },
      { name: 'balance_threshold', label: 'Low balance threshold (tokens)', kind: 'number' },
    ],
  },
  {
    group: 'api',
    legend: 'API defaults',
    fields: [
      { name: 'default_model', label: 'Default model', kind: 'text', hint: 'Used when a request names none.' },
      { name: 'default_temperature', label: 'Default temperature', kind: 'number', hint: '0 to 2.' },
      { name: 'stream_by_default', label: 'Stream by default', kind: 'boolean' },
    ],
  },
  {
    group: 'security',
    legend: 'Security',
    fields: [
      { name: 'ip_whitelist_enabled', label: 'Only allow calls from the addresses below', kind: 'boolean' },
      { name: 'allowed_ips', label: 'Allowed IPs and CIDRs', kind: 'list', hint: 'Comma-separated, e.g. 10.0.0.0/8, 192.0.2.7' },
      { name: 'request_logging', label: 'Keep request and response bodies in the logs', kind: 'boolean' },
    ],
  },
];

type Values = Record<string, string | boolean>;

function toValues(settings: Settings): Values {
  const values: Values = {};
  for (const { group, fields } of FIELDS) {
    for (const field of fields) {
      const value = (settings[group] as Record<string, unknown>)[field.name];
      values[`${group}.${field.name}`] = field.kind === 'boolean' ? Boolean(value) : Array.isArray(value) ? value.join(', ') : value == null ? '' : String(value);
    }
  }
  return values;
}

/** The partial body: only the fields whose value differs from what was loaded. */
function changes(initial: Values, values: Values): Record<string, Record<string, unknown>> {
  const body: Record<string, Record<string, unknown>> = {};
  for (const { group, fields } of FIELDS) {
    for (const field of fields) {
      const key = `${group}.${field.name}`;
      if (values[key] === initial[key]) continue;
      const raw = values[key]!;
      let value: unknown = raw;
      if (field.kind === 'list') value = String(raw).split(',').map((s) => s.trim()).filter(Boolean);
      if (field.kind === 'number') value = raw === '' || Number.isNaN(Number(raw)) ? raw : Number(raw);
      if (field.kind === 'text' && raw === '' && field.name === 'default_model') value = null;
      (body[group] ??= {})[field.name] = value;
    }
  }
  return body;
}

const DRAFT = 'settings';

export function SettingsPage() {
  const loaded = useLoad(() => api.get<Settings>('/v1/settings'), []);
  const [initial, setInitial] = useState<Values | null>(null);
  const [values, setEdited] = useState<Values>({});
  /** The fields edited and not saved are this form's draft (draft.ts) until saved or undone. */
  const setValues = (next: Values) => {
    setEdited(next);
    const edited = Object.entries(next).filter(([key, value]) => initial?.[key] !== value);
    if (edited.length) writeDraft(DRAFT, Object.fromEntries(edited));
    else forgetDraft(DRAFT);
  };
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!loaded.data) return;
    const next = toValues(loaded.data);
    setInitial(next);
    setEdited({ ...next, ...(readDraft<Values>(DRAFT) ?? {}) });
  }, [loaded.data]);

  if (loaded.error) return <Alert kind="error">{loaded.error.message}</Alert>;
  if (!initial) return <Loading />;
  const body = changes(initial, values);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const next = toValues(await api.put<Settings>('/v1/settings', body));
      forgetDraft(DRAFT);
      setInitial(next);
      setEdited(next);
      setSaved(true);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const general = error && !FIELDS.some(({ group, fields }) => fields.some((f) => errorFor(`${group}.${f.name}`, error))) ? error.message : null;
  return (
    <form onSubmit={submit} noValidate class="settings">
      {FIELDS.map(({ group, legend, fields }) => (
        <fieldset key={group}>
          <legend>{legend}</legend>
          {fields.map((field) => {
            const key = `${group}.${field.name}`;
            const message = errorFor(key, error);
            if (field.kind === 'boolean') {
              return (
                <Field
                  key={key}
                  type="checkbox"
                  label={field.label}
                  checked={values[key] === true}
                  error={message}
                  onChange={(e) => setValues({ ...values, [key]: e.currentTarget.checked })}
                />
              );
            }
            return (
              <Field
                key={key}
                label={field.label}
                hint={field.hint}
                value={String(values[key] ?? '')}
                inputMode={field.kind === 'number' ? 'decimal' : undefined}
                error={message}
                onInput={(e) => setValues({ ...values, [key]: e.currentTarget.value })}
              />
            );
          })}
        </fieldset>
      ))}
      {general && <Alert kind="error">{general}</Alert>}
      {saved && <Alert kind="success">Settings saved.</Alert>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || Object.keys(body).length === 0}>
          Save settings
        </button>
        <button type="button" class="ghost" disabled={Object.keys(body).length === 0} onClick={() => {
            forgetDraft(DRAFT);
            setEdited(initial);
          }}>
          Undo changes
        </button>
      </div>
    </form>
  );
}
