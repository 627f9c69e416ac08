/** "Copy as code": a chat call as curl or openai-SDK code, with a copy button (call-code.ts). */
import { useId, useState } from 'preact/hooks';
import { callCode, CODE_KINDS, KEY_PLACEHOLDER, type CodeKind } from '../pages/call-code.ts';
import { Dialog, SelectField } from './ui.tsx';

export function CodeDialog(props: { body: Record<string, unknown>; onClose(): void; initial?: CodeKind }) {
  const [kind, setKind] = useState<CodeKind>(props.initial ?? 'curl');
  const [copied, setCopied] = useState<boolean | null>(null);
  const codeId = useId();
  const code = callCode(kind, `${location.origin}/api/v1`, props.body);
  return (
    <Dialog title="Copy the call as code" onClose={props.onClose}>
      <SelectField label="Language" value={kind} onChange={(e) => setKind(e.currentTarget.value as CodeKind)} options={CODE_KINDS} />
      <pre id={codeId} class="code" tabIndex={0} aria-label={`The call as ${kind}`}>
        {code}
      </pre>
      <p class="muted small">
        The key is read from the environment variable <code>{KEY_PLACEHOLDER}</code>: set it to one of your API keys.
      </p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => navigator.clipboard.writeText(code).then(() => setCopied(true), () => setCopied(false))}
        >
          Copy
        </button>
        <button type="button" class="ghost" onClick={props.onClose}>
          Done
        </button>
      </div>
      <p class="muted" role="status">
        {copied === true ? 'Copied to the clipboard.' : copied === false ? 'The browser refused the clipboard: select the code and copy it.' : ''}
      </p>
    </Dialog>
  );
}
