/**
 * The security page's recovery codes: how many are left, and a new set (replacing the old one)
 * shown once in a dialog to copy or download before it closes.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Alert, Dialog } from '../components/ui.tsx';
import { saveFile } from './log-export.ts';

interface Generated {
  codes: string[];
  created_at: string;
}

function ShownOnce(props: { codes: string[]; onClose(): void }) {
  const [copied, setCopied] = useState(false);
  const text = props.codes.join('\n');
  return (
    <Dialog title="Your recovery codes" onClose={props.onClose}>
      <p>Each code signs you in once when your authenticator app is not at hand. Keep them somewhere safe: this is the only time they are shown.</p>
      <ol class="recovery-codes mono" aria-label="Recovery codes">
        {props.codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <p class="muted" role="status">
        {copied ? 'Copied to the clipboard.' : ''}
      </p>
      <div class="actions">
        <button type="button" onClick={() => navigator.clipboard.writeText(text).then(() => setCopied(true), () => setCopied(false))}>
          Copy the codes
        </button>
        <button type="button" onClick={() => saveFile(`${text}\n`, 'recovery-codes.txt', 'text/plain')}>
          Download
        </button>
        <button type="button" class="primary" onClick={props.onClose}>
          I saved them
        </button>
      </div>
    </Dialog>
  );
}

export function RecoveryCodes(props: { remaining: number; onChanged(): void }) {
  const [shown, setShown] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generate = async () => {
    if (props.remaining > 0 && !confirm('Generate new recovery codes? The codes you have now stop working.')) return;
    setError(null);
    try {
      setShown((await api.post<Generated>('/v1/security/recovery-codes')).codes);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="recovery">
      <h3>Recovery codes</h3>
      <p>
        {props.remaining > 0
          ? `${props.remaining} of 10 recovery codes left. Each one signs you in once without the authenticator app.`
          : 'No recovery codes yet: generate some in case you lose your authenticator app.'}
      </p>
      <button type="button" onClick={() => void generate()}>
        {props.remaining > 0 ? 'Regenerate recovery codes' : 'Generate recovery codes'}
      </button>
      {error && <Alert kind="error">{error}</Alert>}
      {shown && (
        <ShownOnce
          codes={shown}
          onClose={() => {
            setShown(null);
            props.onChanged();
          }}
        />
      )}
    </div>
  );
}
