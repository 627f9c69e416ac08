/**
 * Account security: what is verified, email and phone verification by code, and two-factor
 * authentication with an authenticator app (the otpauth URL drawn as a QR code, in the browser).
 */
import { renderSVG } from 'uqr';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Alert, errorFor, Field, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';

interface SecurityStatus {
  email_verified: boolean;
  phone_verified: boolean;
  two_factor_enabled: boolean;
  two_factor_method: string | null;
}

type CodeType = 'email' | 'sms' | 'totp';

/** Send a code (or start TOTP enrolment), then verify what the user types. */
function Verification(props: { type: CodeType; title: string; recipientLabel?: string; done: boolean; onVerified(): void }) {
  const [recipient, setRecipient] = useState('');
  const [sent, setSent] = useState<{ otpauth_url?: string; secret?: string } | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const send = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setMessage(null);
    try {
      const body = props.type === 'totp' ? { type: 'totp' } : { type: props.type, recipient };
      setSent(await api.post<{ otpauth_url?: string; secret?: string }>('/v1/security/send-code', body));
      if (props.type !== 'totp') setMessage(`A code was sent to ${recipient}.`);
    } catch (e) {
      setError(e as ApiError);
    }
  };
  const verify = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const result = await api.post<{ verified: boolean }>('/v1/security/verify', { type: props.type, code: code.trim() });
      if (result.verified) {
        setSent(null);
        setCode('');
        setMessage(props.type === 'totp' ? 'Two-factor authentication is on.' : 'Verified.');
        props.onVerified();
      } else setMessage('That code is not right. Try again.');
    } catch (e) {
      setError(e as ApiError);
    }
  };
  const id = `verify-${props.type}`;
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>
        {props.title} <span class={`pill pill-${props.done ? 'success' : 'inactive'}`}>{props.done ? (props.type === 'totp' ? 'on' : 'verified') : props.type === 'totp' ? 'off' : 'not verified'}</span>
      </h2>
      {!sent ? (
        <form onSubmit={send} class="inline-form" noValidate>
          {props.recipientLabel && (
            <Field label={props.recipientLabel} value={recipient} onInput={(e) => setRecipient(e.currentTarget.value)} error={errorFor('recipient', error)} />
          )}
          <button type="submit">{props.type === 'totp' ? (props.done ? 'Enrol a new authenticator' : 'Set up an authenticator app') : 'Send a code'}</button>
        </form>
      ) : (
        <form onSubmit={verify} noValidate>
          {sent.otpauth_url && (
            <div class="totp">
              <img src={`data:image/svg+xml;utf8,${encodeURIComponent(renderSVG(sent.otpauth_url, { border: 2 }))}`} alt="QR code to scan with your authenticator app" width={180} height={180} />
              <p>
                Scan the code with your authenticator app, or enter this key by hand: <code class="mono">{sent.secret ?? new URL(sent.otpauth_url).searchParams.get('secret')}</code>
              </p>
            </div>
          )}
          <div class="inline-form">
            <Field label="Code" inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} error={errorFor('code', error)} />
            <button type="submit" class="primary">
              Verify
            </button>
            <button type="button" class="ghost" onClick={() => setSent(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {error && !errorFor('recipient', error) && !errorFor('code', error) && <Alert kind="error">{error.message}</Alert>}
      {message && <Alert kind="info">{message}</Alert>}
    </section>
  );
}

export function SecurityPage() {
  const status = useLoad(() => api.get<SecurityStatus>('/v1/security/status'), []);
  if (status.error) return <Alert kind="error">{status.error.message}</Alert>;
  if (!status.data) return <Loading />;
  const s = status.data;
  return (
    <div class="grid-2">
      <Verification type="totp" title="Two-factor authentication" done={s.two_factor_enabled} onVerified={status.reload} />
      <Verification type="email" title="Email address" recipientLabel="Email address" done={s.email_verified} onVerified={status.reload} />
      <Verification type="sms" title="Phone number" recipientLabel="Phone number" done={s.phone_verified} onVerified={status.reload} />
    </div>
  );
}
