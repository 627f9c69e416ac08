/** The frame of a signed-in page: skip link, header with the account and sign-out, navigation. */
import type { ComponentChildren } from 'preact';
import { navigate } from '../router.ts';
import { pagesFor } from '../pages.ts';
import { useSession } from '../session.ts';
import { ThemeSwitch } from './theme-switch.tsx';
import { Alert } from './ui.tsx';

export function Link(props: { href: string; children: ComponentChildren; current?: boolean; class?: string }) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

export function Layout(props: { page: string; title: string; onSignOut(): void; children: ComponentChildren }) {
  const session = useSession();
  const { account } = session;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">Gateway console</span>
        <span class="who">
          <ThemeSwitch />
          <span>{account.email ?? account.sub}</span>
          <span class="badge">{account.role}</span>
          <button type="button" class="ghost" onClick={props.onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <nav class="sidenav" aria-label="Console pages">
        <ul>
          {pagesFor(session.isAdmin).map((p) => (
            <li key={p.name}>
              <Link href={`/console/${p.name}`} current={p.name === props.page}>
                {p.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{props.title}</h1>
        {session.readOnly && (
          <Alert kind="warning">
            <strong>Read-only mode.</strong> {session.readOnly}
          </Alert>
        )}
        {props.children}
      </main>
    </div>
  );
}
