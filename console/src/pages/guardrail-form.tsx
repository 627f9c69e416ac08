/**
 * The form of one guardrail: name, stage and action, the check's own fields for its type, and
 * what it is attached to (every request, models, groups, keys). The API's refusal is shown beside
 * the field its `param` names (`check.patterns.0`, `apply_to.models`); unsaved edits are kept as
 * a draft (draft.ts), the webhook's header values excepted.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { TextAreaField } from '../components/textarea.tsx';
import { Alert, errorFor, Field, SelectField } from '../components/ui.tsx';
import { useDraft } from '../draft.ts';
import { CHECK_TYPES, createBody, editBody, formOf, PII_KINDS, PII_REGIONS, SECRET_KINDS, type CheckType, type Guardrail, type GuardrailForm } from './guardrail-values.ts';

export const guardrailDraft = (id?: string) => `guardrail:${id ?? 'new'}`;

const CHECK_HINTS: Record<CheckType, string> = {
  regex: 'Regular expressions, matched case- and accent-insensitively.',
  words: 'Words or phrases, matched whole, case- and accent-insensitively.',
  pii: 'Personal data, each validated (Luhn, IBAN checksum, phone lengths).',
  secrets: 'Credential shapes: API keys, cloud access keys, private keys, JWTs.',
  size: 'The request’s size (input only).',
  json: 'The answer is valid JSON (output only).',
  webhook: 'Your service answers {flagged, categories}.',
  moderation: 'A model the gateway routes: /moderations, or a chat model with a prompt.',
};

/** A set of checkboxes in a fieldset; `error` (the API's, about the whole list) below it. */
function Choices(props: { legend: string; options: string[]; value: string[]; onChange(value: string[]): void; error?: string | null; hint?: string; empty?: ComponentChildren }) {
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.hint && <small class="muted">{props.hint}</small>}
      {props.options.length === 0 && props.empty}
      <div class="choice-list">
        {props.options.map((option) => (
          <Field
            key={option}
            type="checkbox"
            label={option}
            checked={props.value.includes(option)}
            onChange={(e) => props.onChange(e.currentTarget.checked ? [...props.value, option] : props.value.filter((v) => v !== option))}
          />
        ))}
      </div>
      {props.error && <p class="field-error">{props.error}</p>}
    </fieldset>
  );
}

export function GuardrailFormView(props: { guardrail?: Guardrail; models: string[]; groups: string[]; onSaved(g: Guardrail): void; onCancel(): void }) {
  const existing = props.guardrail;
  const initial = formOf(existing);
  const [f, setForm, forget] = useDraft<GuardrailForm>(guardrailDraft(existing?.id), initial, ({ headers: _secret, ...kept }) => kept);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof GuardrailForm>(name: K, value: GuardrailForm[K]) => setForm({ ...f, [name]: value });
  const text = (name: keyof GuardrailForm) => (e: Event) => set(name, (e.currentTarget as HTMLInputElement).value as never);
  const err = (param: string) => errorFor(param, error);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const path = '/v1/admin/guardrails';
      const saved = existing ? await api.put<Guardrail>(`${path}/${encodeURIComponent(existing.id)}`, editBody(initial, f)) : await api.post<Guardrail>(path, createBody(f));
      forget();
      props.onSaved(saved);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };

  const shown = ['id', 'name', 'description', 'stage', 'action', 'check', 'apply_to'];
  const general = error && !shown.some((name) => err(name)) ? error.message : null;
  // A refusal about the check as a whole (an unknown type) goes beside the type.
  const checkError = error?.param === 'check' || error?.param === 'check.type' ? error.message : null;
  const lists = f.type === 'regex' || f.type === 'words';
  return (
    <form onSubmit={submit} noValidate>
      <div class="form-grid">
        {!existing && <Field label="Id" value={f.id} onInput={text('id')} error={err('id')} hint="Optional: a slug of the name by default." autoComplete="off" />}
        <Field label="Name" value={f.name} onInput={text('name')} error={err('name')} required={!existing} autoComplete="off" />
        <Field label="Description" value={f.description} onInput={text('description')} error={err('description')} autoComplete="off" />
        <SelectField label="Runs on" value={f.stage} onChange={text('stage')} error={err('stage')} options={[['input', 'Input (the request)'], ['output', 'Output (the answer)'], ['both', 'Both']]} />
        <SelectField label="Action" value={f.action} onChange={text('action')} error={err('action')} options={[['block', 'Block'], ['redact', 'Redact'], ['flag', 'Flag (allow, record)']]} />
        <SelectField label="Check" value={f.type} onChange={(e) => set('type', e.currentTarget.value as CheckType)} error={checkError} options={CHECK_TYPES.map((t): [string, string] => [t, t])} />
      </div>
      <p class="muted small">{CHECK_HINTS[f.type]}</p>
      <div class="form-grid">
        {lists && (
          <TextAreaField
            label={f.type === 'regex' ? 'Patterns' : 'Words'}
            hint="One per line."
            rows={4}
            value={f.lines}
            onInput={text('lines')}
            error={err(f.type === 'regex' ? 'check.patterns' : 'check.words')}
          />
        )}
        {lists && <Field label="Category" value={f.category} onInput={text('category')} error={err('check.category')} hint="The placeholder's name: [CATEGORY]. Default: redacted." autoComplete="off" />}
        {f.type === 'size' && <Field label="Most tokens" inputMode="numeric" value={f.max_tokens} onInput={text('max_tokens')} error={err('check.max_tokens')} />}
        {f.type === 'size' && <Field label="Most characters" inputMode="numeric" value={f.max_chars} onInput={text('max_chars')} error={err('check.max_chars')} />}
        {f.type === 'json' && <Field type="checkbox" label="Also match the request's response_format schema" checked={f.match_schema} onChange={(e) => set('match_schema', e.currentTarget.checked)} error={err('check.match_schema')} />}
        {f.type === 'webhook' && <Field label="Webhook URL" value={f.url} onInput={text('url')} error={err('check.url')} required autoComplete="off" />}
        {f.type === 'moderation' && <Field label="Moderation model" value={f.model} onInput={text('model')} error={err('check.model')} required autoComplete="off" />}
        {(f.type === 'webhook' || f.type === 'moderation') && (
          <>
            <Field label="Timeout (ms)" inputMode="numeric" value={f.timeout_ms} onInput={text('timeout_ms')} error={err('check.timeout_ms')} hint="Default 2000." />
            <SelectField label="When the check cannot answer" value={f.fail} onChange={text('fail')} error={err('check.fail')} options={[['open', 'Let the text through (fail open)'], ['closed', 'Refuse the request (fail closed)']]} />
          </>
        )}
        {f.type === 'webhook' && (
          <TextAreaField label="Webhook headers" hint="One &quot;Name: value&quot; per line. Values are shown masked; a masked value keeps the stored one." rows={2} value={f.headers} onInput={text('headers')} error={err('check.headers')} />
        )}
        {f.type === 'moderation' && <TextAreaField label="Prompt" hint="Ask a chat model with this system prompt instead of /moderations." rows={3} value={f.prompt} onInput={text('prompt')} error={err('check.prompt')} />}
      </div>
      {f.type === 'pii' && <Choices legend="Personal data" hint="None checked: all of them." options={PII_KINDS} value={f.kinds} onChange={(v) => set('kinds', v)} error={err('check.kinds')} />}
      {f.type === 'pii' && <Choices legend="National phone forms of" hint="None checked: US, GB, FR, DE." options={PII_REGIONS} value={f.regions} onChange={(v) => set('regions', v)} error={err('check.regions')} />}
      {f.type === 'secrets' && <Choices legend="Credentials" hint="None checked: all of them." options={SECRET_KINDS} value={f.kinds} onChange={(v) => set('kinds', v)} error={err('check.kinds')} />}

      <fieldset class="choices">
        <legend>Applies to</legend>
        <Field type="checkbox" label="Every request (default)" checked={f.apply_default} onChange={(e) => set('apply_default', e.currentTarget.checked)} error={err('apply_to.default')} />
        <small class="muted">Or only the requests that match any of these:</small>
      </fieldset>
      <Choices legend="Models" options={props.models} value={f.models} onChange={(v) => set('models', v)} error={err('apply_to.models')} empty={<p class="muted">No model yet.</p>} />
      <Choices legend="Groups" options={props.groups} value={f.groups} onChange={(v) => set('groups', v)} error={err('apply_to.groups')} empty={<p class="muted">No group yet.</p>} />
      <Field label="API key ids" value={f.keys} onInput={text('keys')} error={err('apply_to.keys')} hint="Comma-separated." autoComplete="off" />
      {general && <Alert kind="error">{general}</Alert>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {existing ? 'Save' : 'Create guardrail'}
        </button>
        <button type="button" class="ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
