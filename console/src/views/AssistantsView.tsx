import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { Outputs } from '../client.ts';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { when } from '../format.ts';

type Pending = Outputs['assistants']['request'];

/** "Connect an assistant" (approve a pending sign-in by its request code) and the assistants signed in, each of which can be ended. */
export function AssistantsView({ requestCode }: { requestCode?: string | undefined }) {
  return (
    <>
      <ConnectAssistant initialCode={requestCode ?? ''} />
      <SignedInAssistants />
    </>
  );
}

function ConnectAssistant({ initialCode }: { initialCode: string }) {
  const client = useClient();
  const [typed, setTyped] = useState(initialCode);
  const [code, setCode] = useState(initialCode);
  const [subject, setSubject] = useState('');
  const request = useQuery({ queryKey: ['assistants.request', code], queryFn: () => client.assistants.request.query({ requestCode: code }), enabled: code !== '', retry: false });
  const approve = useMutation({ mutationFn: (asked: { requestCode: string; subject?: string }) => client.assistants.approve.mutate(asked) });
  const lookUp = (event: FormEvent) => {
    event.preventDefault();
    approve.reset();
    setCode(typed.trim());
  };
  const approveIt = (event: FormEvent, pending: Pending) => {
    event.preventDefault();
    approve.mutate({ requestCode: pending.requestCode, ...(subject.trim() ? { subject: subject.trim() } : {}) });
  };
  return (
    <Section title="Connect an assistant">
      <p>An assistant signing in shows a page with a request code. Enter it here, check who asks, and approve it for the member it will act as; then press Continue on that page.</p>
      <form className="request-lookup" onSubmit={lookUp}>
        <label>
          Request code <input name="requestCode" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="K7QM-3XPD" autoComplete="off" />
        </label>
        <button type="submit">Look up</button>
      </form>
      {request.error ? <Problem error={request.error} /> : null}
      {request.data ? (
        <form className="pending-sign-in" onSubmit={(e) => approveIt(e, request.data)}>
          <dl>
            <dt>Request</dt>
            <dd className="mono request-code">{request.data.requestCode}</dd>
            <dt>Client</dt>
            <dd>
              <strong className="client-name">{request.data.clientName ?? request.data.clientId}</strong> <small>(its own name for itself)</small>
            </dd>
            <dt>Returns to</dt>
            <dd className="returns-to">{request.data.returnsTo ? `${request.data.returnsTo.scheme}://${request.data.returnsTo.host}` : 'an address that is not a URL'}</dd>
            <dt>Registered</dt>
            <dd>{request.data.documentHost ? `by a document at ${request.data.documentHost}` : 'here'}</dd>
            <dt>May</dt>
            <dd className="may">{request.data.readOnly ? 'read flows, runs, tests and backtests (read only)' : 'build, publish, test and run flows'}</dd>
            <dt>Waits until</dt>
            <dd>{when(request.data.expiresAt)}</dd>
          </dl>
          {request.data.returnsTo?.loopback ? <p className="warning">It returns to a program on the member's own computer: approve only a sign-in the member has just started.</p> : null}
          <label>
            Acts as member (subject) <input name="subject" value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="your own subject, if you signed in with a token" autoComplete="off" />
          </label>
          <button type="submit" disabled={approve.isPending || approve.isSuccess}>
            Approve
          </button>
          {approve.error ? <Problem error={approve.error} /> : null}
          {approve.data ? (
            <p className="ok approved">
              Approved for {approve.data.subject}: press Continue on the sign-in page of request {approve.data.requestCode}.
            </p>
          ) : null}
        </form>
      ) : null}
    </Section>
  );
}

function SignedInAssistants() {
  const client = useClient();
  const queries = useQueryClient();
  const [organizationSlug, setOrganizationSlug] = useState('');
  const organizations = useQuery({ queryKey: ['organizations.list'], queryFn: () => client.organizations.list.query() });
  const clients = useQuery({
    queryKey: ['assistants.clients', organizationSlug],
    queryFn: () => client.assistants.clients.query(organizationSlug ? { organizationSlug } : {}),
    refetchInterval: 5000,
  });
  const end = useMutation({ mutationFn: (clientId: string) => client.assistants.end.mutate({ clientId }), onSuccess: () => queries.invalidateQueries({ queryKey: ['assistants.clients'] }) });
  if (clients.error) return <Problem error={clients.error} />;
  const rows = clients.data?.filter((c) => c.signedIn) ?? [];
  return (
    <Section title="Signed-in assistants">
      <label>
        Organization{' '}
        <select name="organization" value={organizationSlug} onChange={(e) => setOrganizationSlug(e.target.value)}>
          <option value="">all</option>
          {(organizations.data ?? []).map((o) => (
            <option key={o.slug} value={o.slug}>
              {o.slug}
            </option>
          ))}
        </select>
      </label>
      {end.error ? <Problem error={end.error} /> : null}
      {rows.length === 0 ? (
        <p className="empty">No assistant is signed in.</p>
      ) : (
        <div className="table-wrap">
          <table className="assistants">
            <thead>
              <tr>
                <th>Client</th>
                <th>Acts for</th>
                <th>Returns to</th>
                <th>Registered</th>
                <th>Sign-ins</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.clientId} data-client-id={c.clientId}>
                  <td>
                    {c.clientName ?? <span className="mono">{c.clientId}</span>}
                    {c.clientName ? <small className="mono"> {c.clientId}</small> : null}
                  </td>
                  <td className="acts-for">{c.subjects.join(', ')}</td>
                  <td className="mono">{c.redirectUris.join(' ')}</td>
                  <td>{when(c.registeredAt)}</td>
                  <td>{c.grants}</td>
                  <td>
                    <button type="button" className="end-sign-in" disabled={end.isPending} onClick={() => window.confirm(`End every sign-in of ${c.clientName ?? c.clientId}? It must sign in again.`) && end.mutate(c.clientId)}>
                      End
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
