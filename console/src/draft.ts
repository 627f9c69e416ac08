/**
 * Unsaved form edits kept in this tab's sessionStorage, one entry per form and account, so that a
 * reload, or a session revoked under the page and a new sign-in (which goes through the sign-in
 * pages and back), brings them back. Saving or cancelling the form forgets its draft. Secrets
 * (passwords, upstream keys) are never written: the form leaves them out of what it keeps.
 */
import { useRef, useState } from 'preact/hooks';
import { currentAccount } from './auth.ts';

const PREFIX = 'gw-console-draft:';

const storageKey = (form: string) => `${PREFIX}${currentAccount()?.sub ?? ''}:${form}`;

export function readDraft<T>(form: string): T | null {
  try {
    const raw = sessionStorage.getItem(storageKey(form));
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export function writeDraft(form: string, value: unknown): void {
  try {
    sessionStorage.setItem(storageKey(form), JSON.stringify(value));
  } catch {
    // Storage full or refused: the edit still lives in the page.
  }
}

export const forgetDraft = (form: string) => sessionStorage.removeItem(storageKey(form));

/** The forms with a draft whose name starts with `prefix` (a page reopens the dialog of one). */
export function draftsUnder(prefix: string): string[] {
  const start = storageKey(prefix);
  const found: string[] = [];
  for (let i = 0; i < sessionStorage.length; i++) {
    const key = sessionStorage.key(i);
    if (key?.startsWith(start)) found.push(key.slice(start.length - prefix.length));
  }
  return found;
}

/**
 * A form's values, started from its draft when there is one, kept as a draft from the first change
 * on. `keep` picks what may be stored (secrets out); `forget` on save or cancel.
 */
export function useDraft<T extends object>(form: string, initial: T, keep: (values: T) => Partial<T> = (v) => v): [T, (next: T) => void, () => void, boolean] {
  const restored = useRef(readDraft<Partial<T>>(form));
  const [values, setValues] = useState<T>(() => ({ ...initial, ...(restored.current ?? {}) }));
  // Written at once, not in an effect: a reload right after a keystroke must find it.
  const update = (next: T) => {
    writeDraft(form, keep(next));
    setValues(next);
  };
  return [values, update, () => forgetDraft(form), restored.current !== null];
}
