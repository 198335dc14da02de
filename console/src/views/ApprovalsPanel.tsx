import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { shortId, when } from '../format.ts';
import { useLiveRefresh } from '../liveUpdates.ts';
import { hrefOf } from '../route.ts';

/**
 * The approvals that wait for a decision (approval blocks), oldest first, kept current by the live
 * event stream: what the approver reads, who may decide, when the timeout decides instead; approve
 * or reject with a comment, as the member of the run's organization the operator is.
 */
export function ApprovalsPanel() {
  const client = useClient();
  const queries = useQueryClient();
  const key = ['approvals.waiting'];
  const waiting = useQuery({ queryKey: key, queryFn: () => client.approvals.waiting.query({ limit: 50 }) });
  useLiveRefresh([key], ['Approval', 'ExecutionFailed']);
  const [comments, setComments] = useState<Record<string, string>>({});
  const decide = useMutation({
    mutationFn: (input: { executionId: string; stepId: string; decision: 'approve' | 'reject' }) => client.approvals.decide.mutate({ ...input, comment: comments[input.executionId] || undefined }),
    onSuccess: () => queries.invalidateQueries({ queryKey: key }),
  });
  if (waiting.data && waiting.data.length === 0 && !waiting.error) return null;
  return (
    <Section title="Waiting for approval">
      {waiting.error ? <Problem error={waiting.error} /> : null}
      {decide.error ? <Problem error={decide.error} /> : null}
      {waiting.data ? (
        <ul className="approvals">
          {waiting.data.map((a) => (
            <li key={`${a.executionId}/${a.stepId}`} className="approval">
              <p className="approval-text">{a.text}</p>
              <p className="muted">
                <a href={hrefOf({ view: 'run', executionId: a.executionId })}>{shortId(a.executionId)}</a> · {a.flow?.slug ?? a.flowId} · step {a.stepId} · asked {when(a.requestedAt)} · {a.onTimeout} at {when(a.dueAt)} · decided by{' '}
                {[...a.approvers.roles.map((r) => `role ${r}`), ...a.approvers.members].join(', ')}
              </p>
              <form className="filters approval-form" onSubmit={(e) => e.preventDefault()}>
                <label>
                  Comment
                  <input name="approval-comment" value={comments[a.executionId] ?? ''} onChange={(e) => setComments({ ...comments, [a.executionId]: e.target.value })} maxLength={2000} />
                </label>
                <button type="button" className="approval-approve" disabled={decide.isPending} onClick={() => decide.mutate({ executionId: a.executionId, stepId: a.stepId, decision: 'approve' })}>
                  Approve
                </button>
                <button type="button" className="approval-reject" disabled={decide.isPending} onClick={() => decide.mutate({ executionId: a.executionId, stepId: a.stepId, decision: 'reject' })}>
                  Reject
                </button>
              </form>
            </li>
          ))}
        </ul>
      ) : (
        <p>Loading…</p>
      )}
    </Section>
  );
}
