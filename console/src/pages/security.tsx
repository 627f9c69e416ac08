/**
 * Account security: what is verified, email and phone verification by code, two-factor
 * authentication with an authenticator app (the otpauth URL drawn as a QR code, in the browser),
 * its recovery codes (recovery-codes.tsx) and turning it off with a code, login alerts, and the
 * trusted devices that skip the second factor.
 */
import { renderSVG } from 'uqr';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { ActionsHeader, Alert, errorFor, Field, Loading } from '../components/ui.tsx';
import { formatDateTime } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { RecoveryCodes } from './recovery-codes.tsx';

interface SecurityStatus {
  email_verified: boolean;
  phone_verified: boolean;
  two_factor_enabled: boolean;
  two_factor_method: string | null;
  login_alerts_enabled: boolean;
  trusted_devices: Array<{ id: string; name: string; last_used: string }>;
  recovery_codes_remaining: number;
}

type CodeType = 'email' | 'sms' | 'totp';

/** Send a code (or start TOTP enrolment), then verify what the user types. */
function Verification(props: { type: CodeType; title: string; recipientLabel?: string; done: boolean; onVerified(): void; recoveryCodes?: number }) {
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
      {props.type === 'totp' && props.done && !sent && (
        <>
          <RecoveryCodes remaining={props.recoveryCodes ?? 0} onChanged={props.onVerified} />
          <TurnOff onDone={props.onVerified} />
        </>
      )}
    </section>
  );
}

/** Two-factor off, with a current code of the authenticator (a wrong one changes nothing). */
function TurnOff(props: { onDone(): void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setMessage(null);
    try {
      const result = await api.post<{ success: boolean }>('/v1/security/two-factor/disable', { code: code.trim() });
      if (result.success) {
        setCode('');
        props.onDone();
      } else setMessage('That code is not right: two-factor authentication stays on.');
    } catch (e) {
      setError(e as ApiError);
    }
  };
  return (
    <form onSubmit={submit} class="inline-form turn-off" noValidate>
      <Field label="Code to turn it off" inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} error={errorFor('code', error)} />
      <button type="submit" class="danger">
        Turn off two-factor
      </button>
      {error && !errorFor('code', error) && <Alert kind="error">{error.message}</Alert>}
      {message && <Alert kind="warning">{message}</Alert>}
    </form>
  );
}

/** Login alerts: a mail for each sign-in from a new device or address. */
function LoginAlerts(props: { enabled: boolean; onChanged(): void }) {
  const [error, setError] = useState<string | null>(null);
  // Shown as clicked at once (a reload of the status arriving meanwhile must not flip it back), and
  // put back if the change is refused.
  const [checked, setChecked] = useState(props.enabled);
  useEffect(() => setChecked(props.enabled), [props.enabled]);
  const toggle = async (enabled: boolean) => {
    setError(null);
    setChecked(enabled);
    try {
      await api.put('/v1/security/login-alerts', { enabled });
      props.onChanged();
    } catch (e) {
      setChecked(!enabled);
      setError((e as Error).message);
    }
  };
  return (
    <section class="panel" aria-labelledby="login-alerts">
      <h2 id="login-alerts">Login alerts</h2>
      <Field
        type="checkbox"
        label="Email me when someone signs in from a new device or address"
        checked={checked}
        onChange={(e) => void toggle(e.currentTarget.checked)}
      />
      {error && <Alert kind="error">{error}</Alert>}
    </section>
  );
}

/** Browsers that completed a sign-in and skip the second factor; forgetting one makes it new again. */
function TrustedDevices(props: { devices: SecurityStatus['trusted_devices']; onChanged(): void }) {
  const [error, setError] = useState<string | null>(null);
  const forget = async (id: string, name: string) => {
    if (!confirm(`Forget "${name}"? Its next sign-in asks for the second factor again.`)) return;
    setError(null);
    try {
      await api.del(`/v1/security/trusted-devices/${encodeURIComponent(id)}`);
      props.onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="panel" aria-labelledby="trusted-devices">
      <h2 id="trusted-devices">Trusted devices</h2>
      {props.devices.length === 0 ? (
        <p class="muted">No trusted device. A browser becomes one when it completes a sign-in.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Last used</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {props.devices.map((device) => (
                <tr key={device.id}>
                  <th scope="row">{device.name}</th>
                  <td>{formatDateTime(device.last_used)}</td>
                  <td class="actions-cell">
                    <button type="button" class="small danger" aria-label={`Forget ${device.name}`} onClick={() => void forget(device.id, device.name)}>
                      Forget
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {error && <Alert kind="error">{error}</Alert>}
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
      <Verification type="totp" title="Two-factor authentication" done={s.two_factor_enabled} onVerified={status.reload} recoveryCodes={s.recovery_codes_remaining} />
      <Verification type="email" title="Email address" recipientLabel="Email address" done={s.email_verified} onVerified={status.reload} />
      <Verification type="sms" title="Phone number" recipientLabel="Phone number" done={s.phone_verified} onVerified={status.reload} />
      <LoginAlerts enabled={s.login_alerts_enabled} onChanged={status.reload} />
      <TrustedDevices devices={s.trusted_devices} onChanged={status.reload} />
    </div>
  );
}
