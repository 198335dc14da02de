import { QueryCache, QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { StrictMode, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createConsoleClient, isSignedOut } from './client.ts';
import { ClientContext, useClient } from './consoleContext.tsx';
import { hrefOf, type Route, useRoute } from './route.ts';
import { DeliveriesView } from './views/DeliveriesView.tsx';
import { FlowsView } from './views/FlowsView.tsx';
import { RunDetailView } from './views/RunDetailView.tsx';
import { RunsView } from './views/RunsView.tsx';
import { AssistantsView } from './views/AssistantsView.tsx';
import { SystemView } from './views/SystemView.tsx';
import './styles.css';

const NAV: { key: string; label: string; route: Route }[] = [
  { key: '1', label: 'Runs', route: { view: 'runs' } },
  { key: '2', label: 'Deliveries', route: { view: 'deliveries' } },
  { key: '3', label: 'Flows', route: { view: 'flows' } },
  { key: '4', label: 'System', route: { view: 'system' } },
  { key: '5', label: 'Assistants', route: { view: 'assistants' } },
];

/** Keys 1-4 switch views (not while typing in a field). */
function useNavigationKeys() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.altKey || e.ctrlKey || e.metaKey || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
      const item = NAV.find((n) => n.key === e.key);
      if (item) window.location.hash = hrefOf(item.route);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

function SignIn() {
  return (
    <main className="signin">
      <h1>Seqflow console</h1>
      <p>You are not signed in as an operator.</p>
      <p>
        On the server, run <code>seqflow console link</code> and open the link it prints (once, within 15 minutes). With an OAuth token, the console's API answers at{' '}
        <code>/internal/trpc</code>.
      </p>
    </main>
  );
}

function App({ signedOut }: { signedOut: boolean }) {
  const route = useRoute();
  const client = useClient();
  useNavigationKeys();
  // One cheap call tells whether a session is open before any view renders.
  const probe = useQuery({ queryKey: ['system.status'], queryFn: () => client.system.status.query(), retry: false });
  if (signedOut || isSignedOut(probe.error)) return <SignIn />;
  const current = route.view === 'run' ? 'runs' : route.view;
  return (
    <>
      <header className="top">
        <strong className="brand">Seqflow</strong>
        <nav aria-label="Views">
          {NAV.map((n) => (
            <a key={n.key} href={hrefOf(n.route)} aria-current={current === n.route.view ? 'page' : undefined} title={`Key ${n.key}`}>
              {n.label}
            </a>
          ))}
        </nav>
      </header>
      <main>
        {route.view === 'runs' ? <RunsView /> : null}
        {route.view === 'run' ? <RunDetailView executionId={route.executionId} /> : null}
        {route.view === 'deliveries' ? <DeliveriesView /> : null}
        {route.view === 'flows' ? <FlowsView /> : null}
        {route.view === 'system' ? <SystemView /> : null}
        {route.view === 'assistants' ? <AssistantsView key={route.requestCode ?? ''} requestCode={route.requestCode} /> : null}
      </main>
    </>
  );
}

function Root() {
  const [signedOut, setSignedOut] = useState(false);
  const client = useMemo(() => createConsoleClient(), []);
  const queryClient = useMemo(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: (error) => isSignedOut(error) && setSignedOut(true) }),
        defaultOptions: { queries: { retry: (count, error) => !isSignedOut(error) && count < 2, staleTime: 1000 } },
      }),
    [],
  );
  return (
    <ClientContext.Provider value={client}>
      <QueryClientProvider client={queryClient}>
        <App signedOut={signedOut} />
      </QueryClientProvider>
    </ClientContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
