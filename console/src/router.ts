/** Path routing under /console with the History API; pages are `/console/<page>[/<id>]`. */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The current location, re-rendering on navigation. */
export function useLocation(): { path: string; search: string } {
  const [location, setLocation] = useState({ path: window.location.pathname, search: window.location.search });
  useEffect(() => {
    const update = () => setLocation({ path: window.location.pathname, search: window.location.search });
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** Page name and optional id from a path: /console/logs/abc → ['logs', 'abc']. */
export function routeOf(path: string): [string, string | undefined] {
  const [page = '', id] = path.replace(/^\/console\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return [page, id];
}
