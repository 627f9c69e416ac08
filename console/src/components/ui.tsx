/** Small accessible building blocks: labelled fields with their error, alerts, dialogs, copy. */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'label' | 'id'>;

/** A label, an input and, below it, the API's message about this field (tied by aria-describedby). */
export function Field(props: { label: string; error?: string | null; hint?: string } & InputProps) {
  const { label, error, hint, ...input } = props;
  const id = useId();
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${input.type === 'checkbox' ? ' checkbox' : ''}`}>
      <label for={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={described} {...input} />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}

export function SelectField(props: { label: string; error?: string | null; options: Array<[string, string]> } & Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, 'label'>) {
  const { label, error, options, ...select } = props;
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...select}>
        {options.map(([value, text]) => (
          <option value={value} key={value}>
            {text}
          </option>
        ))}
      </select>
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}

export function Alert(props: { kind?: 'error' | 'info' | 'success' | 'warning'; children: ComponentChildren }) {
  const kind = props.kind ?? 'info';
  return (
    <div class={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

export const Loading = () => (
  <p class="muted" role="status">
    Loading…
  </p>
);

/** The fields a dialog opens on: an explicit autofocus first, else its first field (never the close button). */
const FIRST_FIELD = '[autofocus], input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])';

/**
 * A modal <dialog> (focus trapped and Escape handled by the browser), open while mounted, focused on
 * its first field. `locked`: no close button and Escape does nothing (a step that must be answered).
 */
export function Dialog(props: { title: string; onClose(): void; children: ComponentChildren; locked?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>(FIRST_FIELD)?.focus();
    const close = () => props.onClose();
    const cancel = (event: Event) => props.locked && event.preventDefault();
    dialog.addEventListener('close', close);
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('close', close);
      dialog.removeEventListener('cancel', cancel);
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId}>
      <div class="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        {!props.locked && (
          <button type="button" class="ghost" aria-label="Close" onClick={() => ref.current?.close()}>
            ×
          </button>
        )}
      </div>
      {props.children}
    </dialog>
  );
}

/** Shows a secret once, with a copy button; says so when the copy worked. */
export function SecretOnce(props: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <div class="secret">
      <label for={id}>{props.label}</label>
      <div class="secret-row">
        <input id={id} readOnly value={props.value} class="mono" onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(props.value).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          Copy
        </button>
      </div>
      <p class="muted" role="status">
        {copied ? 'Copied to the clipboard.' : 'This is the only time the full key is shown: copy it now.'}
      </p>
    </div>
  );
}

/** A quota bar: used of limit (0 = unlimited), as a native <meter> with the figures in text. */
export function QuotaBar(props: { used: number; limit: number; label: string }) {
  if (!props.limit) return <span class="muted">{props.used.toLocaleString('en')} used · unlimited</span>;
  const share = Math.min(100, (props.used / props.limit) * 100);
  return (
    <span class="quota">
      <meter min={0} max={props.limit} low={props.limit * 0.8} high={props.limit * 0.95} optimum={0} value={props.used} aria-label={props.label} />
      <span>
        {props.used.toLocaleString('en')} / {props.limit.toLocaleString('en')} ({share.toFixed(0)}%)
      </span>
    </span>
  );
}

/** Maps an ApiError's `param` (e.g. `permissions.rate_limit`) to the form field it names. */
export function errorFor(field: string, error: { param: string | null; message: string } | null): string | null {
  if (!error?.param) return null;
  const param = error.param.replace(/\[\d+\]/g, '');
  return param === field || param.startsWith(`${field}.`) || field.startsWith(`${param}.`) ? error.message : null;
}

export interface RowAction {
  label: string;
  run(): void;
  danger?: boolean;
  /** Not a configuration write: offered in read-only mode too. */
  always?: boolean;
}

/** The header over RowActions: named for screen readers, blank on screen. */
export const ActionsHeader = () => (
  <th scope="col" class="actions-cell">
    <span class="visually-hidden">Actions</span>
  </th>
);

/**
 * The last cell of a table row: its action buttons, each named with the row ("Rotate ci key").
 * It sticks to the right edge of a table wider than the screen, so a phone reaches the actions
 * without scrolling the table to its end.
 */
export function RowActions(props: { target: string; disabled: boolean; actions: RowAction[] }) {
  return (
    <td class="actions-cell">
      <div class="row-actions">
        {props.actions.map((action) => (
          <button
            type="button"
            key={action.label}
            class={action.danger ? 'small danger' : 'small'}
            disabled={props.disabled && !action.always}
            onClick={action.run}
            aria-label={`${action.label} ${props.target}`}
          >
            {action.label}
          </button>
        ))}
      </div>
    </td>
  );
}
