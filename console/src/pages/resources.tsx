/**
 * One admin resource (providers, models, groups or users, see resource-specs.ts): list, create,
 * edit (a partial PUT of the fields that changed) and delete, with the API's validation message
 * shown beside the field its `param` names.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { draftsUnder, forgetDraft, useDraft } from '../draft.ts';
import { api, ApiError, type List } from '../api.ts';
import type { ComponentChildren } from 'preact';
import { ActionsHeader, Alert, Dialog, errorFor, Field, Loading, QuotaBar, RowActions, SelectField, type RowAction } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { TextAreaField } from '../components/textarea.tsx';
import { RESOURCES, type FieldSpec, type ResourceSpec } from './resource-specs.ts';
import { changedBody, createBody, textOf, valueAt } from './resource-values.ts';

export type Item = Record<string, unknown> & { id: string };

/** The draft (draft.ts) of a resource's form: `resource:<kind>:<id>`, or `:new` for a create. */
export const draftName = (kind: string, id?: string) => `resource:${kind}:${id ?? 'new'}`;

function ItemForm(props: { kind: string; spec: ResourceSpec; item?: Item; onSaved(item: Item): void; onCancel(): void }) {
  const { spec, item } = props;
  const fields = spec.fields.filter((f) => !(item && f.createOnly));
  const initial = Object.fromEntries(fields.map((f) => [f.name, textOf(f, valueAt(item, f.name)) || (f.kind === 'select' && !item ? f.options![0]! : '')]));
  // Secrets (an upstream key, a password) stay out of the stored draft.
  const keep = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).filter(([name]) => !fields.some((f) => f.name === name && f.kind === 'secret')));
  const [values, setValues, forget] = useDraft<Record<string, string>>(draftName(props.kind, item?.id), initial, keep);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    // On edit only what changed is sent (the API's PUT is partial).
    const body = item ? changedBody(fields, initial, values, item) : createBody(fields, values);
    setBusy(true);
    setError(null);
    try {
      const path = item ? `${spec.path}/${encodeURIComponent(item.id)}` : spec.path;
      const saved = item ? await api.put<Item>(path, body) : await api.post<Item>(path, body);
      forget();
      props.onSaved(saved);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const general = error && !fields.some((f) => errorFor(f.name, error)) ? error.message : null;
  return (
    <form onSubmit={submit} noValidate>
      <div class="form-grid">
        {fields.map((field) => {
          const common = { label: field.label, error: errorFor(field.name, error), value: values[field.name] ?? '' };
          const update = (e: Event) => setValues({ ...values, [field.name]: (e.currentTarget as HTMLInputElement).value });
          if (field.kind === 'select') {
            return <SelectField key={field.name} {...common} onChange={update} options={field.options!.map((o): [string, string] => [o, o || 'Default'])} />;
          }
          if (field.kind === 'bool') {
            const options: Array<[string, string]> = [['', field.hint ?? 'Default'], ['true', 'Yes'], ['false', 'No']];
            return <SelectField key={field.name} {...common} onChange={update} options={options} />;
          }
          if (field.kind === 'headers') {
            return <TextAreaField key={field.name} {...common} hint={field.hint} rows={3} onInput={update} />;
          }
          return (
            <Field
              key={field.name}
              {...common}
              hint={field.hint}
              required={field.required && !item}
              type={field.kind === 'secret' ? 'password' : 'text'}
              autoComplete={field.kind === 'secret' ? 'new-password' : 'off'}
              inputMode={field.kind === 'number' ? 'decimal' : undefined}
              onInput={update}
            />
          );
        })}
      </div>
      {general && <Alert kind="error">{general}</Alert>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {item ? 'Save' : `Create ${spec.singular}`}
        </button>
        <button type="button" class="ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Cell(props: { item: Item; column: ResourceSpec['columns'][number] }) {
  const value = props.item[props.column.field];
  switch (props.column.kind) {
    case 'quota':
      return <QuotaBar used={Number(props.item.quota_used ?? 0)} limit={Number(value ?? 0)} label={`Quota of ${String(props.item.name ?? props.item.id)}`} />;
    case 'list':
      return <>{Array.isArray(value) && value.length ? value.join(', ') : '—'}</>;
    case 'pill':
      return <span class={`pill pill-${String(value)}`}>{String(value ?? '—')}</span>;
    case 'money':
      return <>{value == null ? '—' : String(value)}</>;
    default:
      return <>{value == null || value === '' ? '—' : String(value)}</>;
  }
}

/** What a page built on this one adds: columns after the spec's, actions before Edit and Delete. */
export interface ResourceExtras {
  columns?: Array<{ label: string; cell(item: Item): ComponentChildren }>;
  actions?(item: Item): RowAction[];
}

export function ResourcePage(props: { kind: string; extras?: ResourceExtras }) {
  const spec = RESOURCES[props.kind]!;
  const { readOnly } = useSession();
  const items = useLoad(() => api.get<List<Item>>(spec.path), [spec.path]);
  const [editing, setEditing] = useState<Item | 'new' | null>(null);
  const [notice, setNotice] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  // Once the list is in: a form left with unsaved edits (a reload, a new sign-in) opens again.
  const reopened = useRef(false);
  useEffect(() => {
    if (!items.data || reopened.current) return;
    reopened.current = true;
    const form = draftsUnder(draftName(props.kind, '')).map((name) => name.slice(draftName(props.kind, '').length))[0];
    if (form === 'new') setEditing('new');
    else if (form) {
      const item = items.data.data.find((i) => i.id === form);
      if (item) setEditing(item);
      else forgetDraft(draftName(props.kind, form));
    }
  }, [items.data]);
  /** Closing the dialog without saving (Cancel, ×, Escape) drops its draft. */
  const cancel = () => {
    if (editing) forgetDraft(draftName(props.kind, editing === 'new' ? undefined : editing.id));
    setEditing(null);
  };

  const remove = async (item: Item) => {
    if (!confirm(`Delete ${spec.singular} "${String(item.name ?? item.email ?? item.id)}"?`)) return;
    setNotice(null);
    try {
      await api.del(`${spec.path}/${encodeURIComponent(item.id)}`);
      setNotice({ kind: 'success', text: `Deleted ${spec.singular} ${item.id}.` });
      items.reload();
    } catch (e) {
      setNotice({ kind: 'error', text: (e as Error).message });
    }
  };

  /** A member who lost their authenticator signs in with the password alone again (users only). */
  const resetTwoFactor = async (item: Item) => {
    if (!confirm(`Turn two-factor authentication off for ${item.id}? They sign in with their password alone until they enrol again.`)) return;
    try {
      await api.post(`/v1/admin/users/${encodeURIComponent(item.id)}/two-factor/reset`);
      setNotice({ kind: 'success', text: `Two-factor authentication is off for ${item.id}.` });
    } catch (e) {
      setNotice({ kind: 'error', text: (e as Error).message });
    }
  };

  return (
    <>
      <div class="toolbar">
        <button type="button" class="primary" disabled={!!readOnly} onClick={() => setEditing('new')}>
          Create {spec.singular}
        </button>
      </div>
      {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
      {items.error && <Alert kind="error">{items.error.message}</Alert>}
      {!items.data ? (
        !items.error && <Loading />
      ) : items.data.data.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                {spec.columns.map((c) => (
                  <th scope="col" key={c.field}>
                    {c.label}
                  </th>
                ))}
                {props.extras?.columns?.map((c) => (
                  <th scope="col" key={c.label}>
                    {c.label}
                  </th>
                ))}
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {items.data.data.map((item) => (
                <tr key={item.id}>
                  {spec.columns.map((c, i) =>
                    i === 0 ? (
                      <th scope="row" key={c.field}>
                        <Cell item={item} column={c} />
                      </th>
                    ) : (
                      <td key={c.field}>
                        <Cell item={item} column={c} />
                      </td>
                    ),
                  )}
                  {props.extras?.columns?.map((c) => <td key={c.label}>{c.cell(item)}</td>)}
                  <RowActions
                    target={item.id}
                    disabled={!!readOnly}
                    actions={[
                      ...(props.extras?.actions?.(item) ?? []),
                      { label: 'Edit', run: () => setEditing(item) },
                      ...(props.kind === 'users' ? [{ label: 'Reset 2FA', run: () => resetTwoFactor(item), always: true }] : []),
                      { label: 'Delete', run: () => remove(item), danger: true },
                    ]}
                  />
                </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {editing && (
          <Dialog title={editing === 'new' ? `Create a ${spec.singular}` : `Edit ${spec.singular} ${editing.id}`} onClose={cancel}>
            <ItemForm
              kind={props.kind}
              spec={spec}
              item={editing === 'new' ? undefined : editing}
              onCancel={cancel}
              onSaved={(saved) => {
                setEditing(null);
                setNotice({ kind: 'success', text: `Saved ${spec.singular} ${saved.id}.` });
                items.reload();
              }}
            />
          </Dialog>
        )}
      </>
    );
  }
  