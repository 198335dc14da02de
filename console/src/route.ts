import { useEffect, useState } from 'react';

/** Where the page is: `#/runs`, `#/runs/<executionId>`, `#/deliveries`, `#/flows`, `#/system`, `#/assistants[/<request code>]`. */
export type Route = { view: 'runs' } | { view: 'run'; executionId: string } | { view: 'deliveries' } | { view: 'flows' } | { view: 'system' } | { view: 'assistants'; requestCode?: string };

export function parseRoute(hash: string): Route {
  const [, view, id] = hash.replace(/^#/, '').split('/');
  if (view === 'runs' && id) return { view: 'run', executionId: decodeURIComponent(id) };
  if (view === 'deliveries' || view === 'flows' || view === 'system') return { view };
  if (view === 'assistants') return id ? { view, requestCode: decodeURIComponent(id) } : { view };
  return { view: 'runs' };
}

export const hrefOf = (route: Route) =>
  route.view === 'run' ? `#/runs/${encodeURIComponent(route.executionId)}` : route.view === 'assistants' && route.requestCode ? `#/assistants/${encodeURIComponent(route.requestCode)}` : `#/${route.view}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
