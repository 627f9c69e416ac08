/**
 * Guardrails (admins): the named checks of gateway.yaml through /v1/admin/guardrails: list,
 * create, edit and delete. A change applies on the configuration reload it causes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type List } from '../api.ts';
import { ActionsHeader, Alert, Dialog, Loading, RowActions } from '../components/ui.tsx';
import { draftsUnder, forgetDraft } from '../draft.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { GuardrailFormView, guardrailDraft } from './guardrail-form.tsx';
import { applySummary, checkSummary, type Guardrail } from './guardrail-values.ts';

/** What the form offers to attach to: the models and groups there are. */
async function loadAll() {
  const [guardrails, models, groups] = await Promise.all([
    api.get<List<Guardrail>>('/v1/admin/guardrails'),
    api.get<List<{ id: string }>>('/v1/admin/models'),
    api.get<List<{ id: string }>>('/v1/admin/groups'),
  ]);
  return { guardrails: guardrails.data, models: models.data.map((m) => m.id), groups: groups.data.map((g) => g.id) };
}

export function GuardrailsPage() {
  const { readOnly } = useSession();
  const loaded = useLoad(loadAll, []);
  const [editing, setEditing] = useState<Guardrail | 'new' | null>(null);
  const [notice, setNotice] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  // A form left with unsaved edits (a reload, a new sign-in) opens again once the list is in.
  const reopened = useRef(false);
  useEffect(() => {
    if (!loaded.data || reopened.current) return;
    reopened.current = true;
    const form = draftsUnder(guardrailDraft('')).map((name) => name.slice(guardrailDraft('').length))[0];
    if (form === 'new') setEditing('new');
    else if (form) {
      const found = loaded.data.guardrails.find((g) => g.id === form);
      if (found) setEditing(found);
      else forgetDraft(guardrailDraft(form));
    }
  }, [loaded.data]);

  const cancel = () => {
    if (editing) forgetDraft(guardrailDraft(editing === 'new' ? undefined : editing.id));
    setEditing(null);
  };
  const remove = async (g: Guardrail) => {
    if (!confirm(`Delete guardrail "${g.name}"?`)) return;
    setNotice(null);
    try {
      await api.del(`/v1/admin/guardrails/${encodeURIComponent(g.id)}`);
      setNotice({ kind: 'success', text: `Deleted guardrail ${g.id}.` });
      loaded.reload();
    } catch (e) {
      setNotice({ kind: 'error', text: (e as Error).message });
    }
  };

  const data = loaded.data;
  return (
    <>
      <p class="muted">
        Checks on what goes in and comes out, run where the <code>guardrails</code> step sits in the pipeline. Block answers an error, redact replaces what matched with
        a placeholder, flag only records the verdict in the call log.
      </p>
      <div class="toolbar">
        <button type="button" class="primary" disabled={!!readOnly} onClick={() => setEditing('new')}>
          Create guardrail
        </button>
      </div>
      {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
      {loaded.error && <Alert kind="error">{loaded.error.message}</Alert>}
      {!data ? (
        !loaded.error && <Loading />
      ) : data.guardrails.length === 0 ? (
        <p class="muted">No guardrail yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Check</th>
                <th scope="col">Runs on</th>
                <th scope="col">Action</th>
                <th scope="col">Applies to</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {data.guardrails.map((g) => (
                <tr key={g.id}>
                  <th scope="row">{g.name}</th>
                  <td>{g.id}</td>
                  <td>
                    <strong>{g.check.type}</strong> <span class="muted">{checkSummary(g.check)}</span>
                  </td>
                  <td>{g.stage}</td>
                  <td>
                    <span class={`pill pill-${g.action === 'block' ? 'error' : g.action === 'redact' ? 'degraded' : 'inactive'}`}>{g.action}</span>
                  </td>
                  <td>{applySummary(g.apply_to)}</td>
                  <RowActions
                    target={g.id}
                    disabled={!!readOnly}
                    actions={[
                      { label: 'Edit', run: () => setEditing(g) },
                      { label: 'Delete', run: () => void remove(g), danger: true },
                    ]}
                  />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && data && (
        <Dialog title={editing === 'new' ? 'Create a guardrail' : `Edit guardrail ${editing.id}`} onClose={cancel}>
          <GuardrailFormView
            guardrail={editing === 'new' ? undefined : editing}
            models={data.models}
            groups={data.groups}
            onCancel={cancel}
            onSaved={(saved) => {
              setEditing(null);
              setNotice({ kind: 'success', text: `Saved guardrail ${saved.id}. It applies after the configuration reload.` });
              loaded.reload();
            }}
          />
        </Dialog>
      )}
    </>
  );
}
