/** The console's entry: sign-in and callback when signed out, otherwise the page for the path. */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, whenSignedOut } from './api.ts';
import { completeSignIn, currentAccount, signOut, type Account } from './auth.ts';
import { Layout } from './components/layout.tsx';
import { Alert, Loading } from './components/ui.tsx';
import { PAGES } from './pages.ts';
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
import './styles.css';

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
  const [account, setAccount] = useState<Account | null>(currentAccount());
  const [readOnly, setReadOnly] = useState<string | null>(null);
  const [page, id] = routeOf(path);

  useEffect(() => whenSignedOut(() => setAccount(null)), []);
  useEffect(() => {
    if (!account) return;
    api.get<{ management?: { writable: boolean; reason: string | null } }>('/v1/system/status').then(
      (status) => setReadOnly(status.management && !status.management.writable ? status.management.reason : null),
      () => setReadOnly(null),
    );
  }, [account]);

  const session = useMemo<Session | null>(() => (account ? { account, isAdmin: account.role === 'admin', readOnly } : null), [account, readOnly]);
  const info = session ? PAGES.find((p) => p.name === page && (session.isAdmin || !p.adminOnly)) : undefined;
  const title = !session ? 'Sign in' : info ? (page === 'logs' && id ? 'Log entry' : info.title) : 'Page not found';
  useEffect(() => {
    document.title = `${title} · Gateway console`;
  }, [title]);

  if (page === 'callback') return <Callback search={search} onSignedIn={setAccount} />;
  // The query string too: a shared link to filtered logs shows them after the sign-in.
  if (!session) return <SignInPage returnTo={page ? `${path}${search}` : '/console/overview'} />;
  if (!page) {
    navigate('/console/overview', true);
    return null;
  }
  const onSignOut = async () => {
    await signOut();
    setAccount(null);
    navigate('/console/', true);
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout page={page} title={title} onSignOut={onSignOut}>
        {info ? pageContent(page, id) : <p>There is no page at {path}.</p>}
      </Layout>
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
    case 'settings':
      return <SettingsPage />;
    case 'security':
      return <SecurityPage />;
    default:
      return null;
  }
}

render(<App />, document.getElementById('app')!);
