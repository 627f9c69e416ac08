/** A labelled multi-line field, with its hint and the API's message about it (as Field in ui.tsx). */
import type { JSX } from 'preact';
import { useId } from 'preact/hooks';

type TextAreaProps = Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, 'label' | 'id'>;

export function TextAreaField(props: { label: string; error?: string | null; hint?: string } & TextAreaProps) {
  const { label, error, hint, ...textarea } = props;
  const id = useId();
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={described} {...textarea} />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && <p id={`${id}-error`} class="field-error">{error}</p>}
    </div>
  );
}
