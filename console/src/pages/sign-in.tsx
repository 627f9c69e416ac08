/** Signed out: sign in with a gateway account (the gateway's OAuth login) or the company's SSO. */
import { useState } from 'preact/hooks';
import { loadOptions, signIn } from '../auth.ts';
import { ThemeSwitch } from '../components/theme-switch.tsx';
import { Alert } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';

export function SignInPage(props: { returnTo: string }) {
  const options = useLoad(loadOptions, []);
  const [busy, setBusy] = useState(false);
  const go = (method: 'password' | 'sso') => {
    setBusy(true);
    signIn(method, props.returnTo).catch(() => setBusy(false));
  };
  return (
    <main id="main" class="center sign-in">
      <h1>Gateway console</h1>
      <p>Manage API keys, look at usage and costs, and read the call logs of this gateway.</p>
      {options.error && <Alert kind="error">{options.error.message}</Alert>}
      <div class="stack">
        <button type="button" class="primary" disabled={busy} onClick={() => go('password')}>
          Sign in with your gateway account
        </button>
        {options.data?.sso && (
          <button type="button" disabled={busy} onClick={() => go('sso')}>
            Sign in with {options.data.sso.name}
          </button>
        )}
      </div>
      <p class="muted small">Two-factor authentication is asked for at sign-in when your account has it.</p>
      <ThemeSwitch />
    </main>
  );
}
