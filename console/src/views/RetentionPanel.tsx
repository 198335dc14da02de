import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';

const period = (days: number | null) => (days === null ? 'kept' : `${days} days`);

/**
 * How long a project's runs keep their personal data after they end (docs/operations.md): its
 * organization's period, the project's own in its place where set, and the one that applies; each
 * set here as `seqflow org|project retention --runs` sets it (recorded with the operator's name).
 */
export function RetentionPanel({ organizationId, projectId }: { organizationId: string; projectId: string }) {
  const client = useClient();
  const queries = useQueryClient();
  const periods = useQuery({ queryKey: ['retention.get', organizationId], queryFn: () => client.retention.get.query({ organizationId }), refetchInterval: 2000 });
  const set = useMutation({
    mutationFn: (input: { projectId: string | null; runDays: number | null }) => client.retention.set.mutate({ organizationId, ...input }),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['retention.get', organizationId] }),
  });
  const project = periods.data?.projects.find((p) => p.projectId === projectId);
  return (
    <Section title="Retention">
      {periods.error ? <Problem error={periods.error} /> : null}
      {set.error ? <Problem error={set.error} /> : null}
      {periods.data && project ? (
        <>
          <dl className="header retention">
            <dt>Organization</dt>
            <dd className="retention-organization">{period(periods.data.runDays)}</dd>
            <dt>This project</dt>
            <dd className="retention-project">{project.runDays === null ? "the organization's" : period(project.runDays)}</dd>
            <dt>Applies to its runs</dt>
            <dd className="retention-applied">{period(project.appliedRunDays)}</dd>
          </dl>
          <PeriodForm label="Organization's period" onSet={(runDays) => set.mutate({ projectId: null, runDays })} pending={set.isPending} name="organization" />
          <PeriodForm label="This project's period" onSet={(runDays) => set.mutate({ projectId, runDays })} pending={set.isPending} name="project" />
          <p className="muted">Days after a run ends before its personal data is erased by the retention sweep; empty: kept (for a project: the organization's period applies).</p>
        </>
      ) : periods.data ? null : <p>Loading…</p>}
    </Section>
  );
}

function PeriodForm({ label, name, pending, onSet }: { label: string; name: string; pending: boolean; onSet: (runDays: number | null) => void }) {
  const [days, setDays] = useState('');
  return (
    <form
      className={`filters retention-${name}-form`}
      onSubmit={(e) => {
        e.preventDefault();
        onSet(days.trim() === '' ? null : Number(days));
      }}
    >
      <label>
        {label}
        <input name={`${name}-days`} type="number" min={1} max={36500} step={1} value={days} onChange={(e) => setDays(e.target.value)} placeholder="days, or empty" />
      </label>
      <button type="submit" disabled={pending}>
        Set
      </button>
    </form>
  );
}
