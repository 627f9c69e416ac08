/** The console's entry: sign-in and callback when signed out, otherwise the page for the path. */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, whenSignedOut } from './api.ts';
import { completeSignIn, currentAccount, onSessionChange, restoreSession, signOut, type Account } from './auth.ts';
import { Layout } from './components/layout.tsx';
import { SessionEnded, type Ended } from './components/session-ended.tsx';
import { Alert, Loading } from './components/ui.tsx';
import { PAGES } from './pages.ts';
import { GuardrailsPage } from './pages/guardrails.tsx';
import { KeysPage } from './pages/keys.tsx';
import { LogDetailPage, LogsPage } from './pages/logs.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { ProvidersPage } from './pages/providers.tsx';
import { ResourcePage } from './pages/resources.tsx';
import { SecurityPage } from './pages/security.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { navigate, routeOf, useLocation } from './router.ts';
import { SessionContext, type Session } from './session.ts';
import { applyTheme, savedTheme } from './theme.ts';
import './styles.css';

// Before the first paint: the remembered theme, or the system's.
applyTheme(savedTheme());

function Callback(props: { search: string; onSignedIn(account: Account): void }) {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    completeSignIn(props.search).then(
      (next) => {
        props.onSignedIn(currentAccount()!);
        navigate(next, true);
      },
      (e: Error) => setError(e.message),
    );
  }, []);
  return (
    <main id="main" class="center">
      <h1>Signing in</h1>
      {error ? (
        <Alert kind="error">
          {error} <a href="/console/">Back to sign-in</a>
        </Alert>
      ) : (
        <Loading />
      )}
    </main>
  );
}

function App() {
  const { path, search } = useLocation();
  // Undefined until the session cookie (a reload, a new tab) has been asked about.
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const [ended, setEnded] = useState<Ended | null>(null);
  const [readOnly, setReadOnly] = useState<string | null>(null);
  const [page, id] = routeOf(path);

  useEffect(() => {
    if (page === 'callback') return;
    restoreSession().then(setAccount, () => setAccount(null));
  }, []);
  // A session that ends under a signed-in page keeps the page (and its unsaved edits) behind a dialog.
  useEffect(() => {
    whenSignedOut((reason, message) => {
      if (currentAccountShown.current) setEnded({ reason, message });
      else setAccount(null);
    });
  }, []);
  useEffect(
    () =>
      onSessionChange((what) => {
        if (what === 'signed-out' && currentAccountShown.current) setEnded({ reason: 'signed_out', message: 'You signed out in another tab.' });
        if (what === 'signed-in' && !currentAccountShown.current) restoreSession().then((restored) => restored && setAccount(restored));
      }),
    [],
  );
  currentAccountShown.current = account ?? null;
  useEffect(() => {
    if (!account) return;
    api.get<{ management?: { writable: boolean; reason: string | null } }>('/v1/system/status').then(
      (status) => setReadOnly(status.management && !status.management.writable ? status.management.reason : null),
      () => setReadOnly(null),
    );
  }, [account]);

  const session = useMemo<Session | null>(() => (account ? { account, isAdmin: account.role === 'admin', readOnly } : null), [account, readOnly]);
  const resumed = (restored: Account) => {
    setEnded(null);
    setAccount(restored);
  };
  const info = session ? PAGES.find((p) => p.name === page && (session.isAdmin || !p.adminOnly)) : undefined;
  const title = account === undefined ? 'Loading' : !session ? 'Sign in' : info ? (page === 'logs' && id ? 'Log entry' : info.title) : 'Page not found';
  useEffect(() => {
    document.title = `${title} · Gateway console`;
  }, [title]);

  if (page === 'callback') return <Callback search={search} onSignedIn={setAccount} />;
  if (account === undefined) {
    return (
      <main id="main" class="center">
        <h1>Gateway console</h1>
        <Loading />
      </main>
    );
  }
  // The query string too: a shared link to filtered logs shows them after the sign-in.
  if (!session) return <SignInPage returnTo={page ? `${path}${search}` : '/console/overview'} />;
  if (!page) {
    navigate('/console/overview', true);
    return null;
  }
  const onSignOut = async () => {
    await signOut();
    setEnded(null);
    setAccount(null);
    navigate('/console/', true);
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout page={page} title={title} onSignOut={onSignOut}>
        {info ? pageContent(page, id) : <p>There is no page at {path}.</p>}
      </Layout>
      {ended && <SessionEnded ended={ended} account={session.account} returnTo={`${path}${search}`} onResumed={resumed} />}
    </SessionContext.Provider>
  );
}

function pageContent(page: string, id: string | undefined) {
  switch (page) {
    case 'overview':
      return <OverviewPage />;
    case 'keys':
      return <KeysPage />;
    case 'logs':
      return id ? <LogDetailPage id={id} /> : <LogsPage />;
    case 'providers':
      return <ProvidersPage />;
    case 'models':
    case 'groups':
    case 'users':
      return <ResourcePage kind={page} key={page} />;
    case 'playground':
      return <PlaygroundPage />;
    case 'guardrails':
      return <GuardrailsPage />;
    case 'settings':
      return <SettingsPage />;
    case 'security':
      return <SecurityPage />;
    default:
      return null;
  }
}

/** The account the page shows, for the session listeners registered once. */
const currentAccountShown: { current: Account | null } = { current: null };

render(<App />, document.getElementById('app')!);
