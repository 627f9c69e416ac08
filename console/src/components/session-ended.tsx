/**
 * Shown over a signed-in page whose session ended (signed out in another tab, revoked, account
 * changed): it says so, and the page stays mounted underneath, so a half-filled form is still there
 * after signing in again. Signing in in a new tab keeps this one as it is; "Continue" picks up the
 * new session (or comes by itself when the other tab announces the sign-in).
 */
import { useEffect, useState } from 'preact/hooks';
import { onSessionChange, restoreSession, signIn, type Account, type SignedOutReason } from '../auth.ts';
import { Alert, Dialog } from './ui.tsx';

export interface Ended {
  reason: SignedOutReason;
  message: string;
}

export function SessionEnded(props: { ended: Ended; account: Account; returnTo: string; onResumed(account: Account): void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const resume = async () => {
    const restored = await restoreSession().catch(() => null);
    if (!restored) return setProblem('You are still signed out. Sign in again first (in a new tab keeps this page as it is).');
    // Someone else signed in at this browser: this page's edits are not theirs to save.
    if (restored.sub !== props.account.sub) {
      location.assign(props.returnTo);
      return;
    }
    props.onResumed(restored);
  };
  useEffect(() => onSessionChange((what) => what === 'signed-in' && void resume()), []);
  return (
    <Dialog title={props.ended.reason === 'session_revoked' ? 'Your session was revoked' : 'You are signed out'} onClose={() => undefined} locked>
      <Alert kind="warning">{props.ended.message}</Alert>
      <p>Your unsaved changes on this page are kept. Sign in again, then continue where you were.</p>
      {problem && <Alert kind="error">{problem}</Alert>}
      <div class="actions">
        <button type="button" class="primary" onClick={() => window.open('/console/', '_blank', 'noopener')}>
          Sign in in a new tab
        </button>
        <button type="button" onClick={resume}>
          Continue
        </button>
        <button type="button" class="ghost" onClick={() => void signIn('password', props.returnTo)}>
          Sign in here (unsaved changes are lost)
        </button>
      </div>
    </Dialog>
  );
}
