import { useMutation, useQuery } from '@tanstack/react-query';
import { Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { when } from '../format.ts';
import { hrefOf } from '../route.ts';

/** Every live process (role, tasks, lag), projections and their lag, this process's supervised reactors and tasks, job and delivery backlogs, leases; verify the read models. */
export function SystemView() {
  const client = useClient();
  const status = useQuery({ queryKey: ['system.status'], queryFn: () => client.system.status.query(), refetchInterval: 2000 });
  const verify = useMutation({ mutationFn: () => client.projections.verify.mutate() });
  if (status.error) return <Problem error={status.error} />;
  const s = status.data;
  if (!s) return <p>Loading…</p>;
  return (
    <>
      <Section title="Processes">
        <div className="table-wrap">
          <table className="processes">
            <thead>
              <tr>
                <th>Process</th>
                <th>Role</th>
                <th>Host · pid</th>
                <th>Started</th>
                <th>Tasks</th>
                <th>Projection lag</th>
                <th>Reported</th>
              </tr>
            </thead>
            <tbody>
              {s.processes.map((p) => (
                <tr key={p.runnerId} data-process={p.runnerId} data-role={p.report?.role ?? ''}>
                  <td className="mono">{p.runnerId}</td>
                  <td>{p.report?.role ?? '—'}</td>
                  <td className="mono">{p.report ? `${p.report.host} · ${p.report.pid}` : ''}</td>
                  <td>{p.report ? when(p.report.startedAt) : ''}</td>
                  <td className="tasks">
                    {p.report?.tasks.map((t) => (
                      <span key={t.name} className="task" title={t.lastError ?? ''}>
                        <span className="mono">{t.name}</span> <StatusChip status={t.state} />
                        {t.restarts > 0 ? ` ${t.restarts} restarts` : ''}{' '}
                      </span>
                    ))}
                  </td>
                  <td className="lag">{p.report ? `${p.report.projections.maxBehind}${p.report.projections.stalled.length > 0 ? ` (stalled: ${p.report.projections.stalled.join(', ')})` : ''}` : ''}</td>
                  <td>{p.report ? when(p.report.reportedAt) : 'not yet'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted">Every process whose runner lease is live, from the report it writes each time it renews it. A process that stops renewing drops off when its lease runs out.</p>
      </Section>
      <Section title="Projections">
        <div className="table-wrap">
          <table className="projections">
            <thead>
              <tr>
                <th>Projection</th>
                <th>Runner</th>
                <th>Run by</th>
                <th>Position</th>
                <th>Lag (events)</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {s.projections.map((p) => (
                <tr key={p.name} data-projection={p.name}>
                  <td className="mono">{p.name}</td>
                  <td className="mono">{p.runner}</td>
                  <td className="mono owner">{p.owner ?? '—'}</td>
                  <td>{p.position}</td>
                  <td className="lag">{p.behind}</td>
                  <td>{p.stalled ? <StatusChip status="stalled" detail={`at ${p.stalled.eventType}: ${p.stalled.error}`} /> : <StatusChip status="current" />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted">The projections run in groups (runners), each read and applied by one worker process under a lease; when that process dies, another takes the group over from its checkpoints.</p>
        <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify read models'}
        </button>
        {verify.error ? <Problem error={verify.error} /> : null}
        {verify.data ? (
          <p className={verify.data.ok ? 'ok' : 'problem'}>
            {verify.data.ok ? 'Every read model equals a rebuild from the log.' : `Differs: ${verify.data.tables.filter((t) => !t.same).map((t) => t.table).join(', ')}`} (log position {verify.data.at})
          </p>
        ) : null}
      </Section>
      <Section title="This process's reactors and tasks">
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Task</th>
                <th>State</th>
                <th>Restarts</th>
                <th>Last error</th>
              </tr>
            </thead>
            <tbody>
              {s.tasks.map((t) => (
                <tr key={t.name}>
                  <td className="mono">{t.name}</td>
                  <td>
                    <StatusChip status={t.state} />
                  </td>
                  <td>{t.restarts}</td>
                  <td className="excerpt">{t.lastError ? `${t.lastError} (${when(t.lastErrorAt)})` : ''}</td>
                </tr>
              ))}
              {s.reactors.map((r) => (
                <tr key={r.name}>
                  <td className="mono">{r.name}</td>
                  <td>at position {r.position}</td>
                  <td />
                  <td />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
      <Section title="Watchdog">
        {s.watchdog === null ? (
          <p className="empty">No watchdog runs in this process yet (worker processes run it; `seqflow doctor` checks from anywhere).</p>
        ) : s.watchdog.findings.length === 0 ? (
          <p className="ok">Nothing stuck (checked {when(s.watchdog.checkedAt)}).</p>
        ) : (
          <div className="table-wrap">
            <table className="watchdog">
              <thead>
                <tr>
                  <th>Finding</th>
                  <th>Item</th>
                  <th>Why</th>
                </tr>
              </thead>
              <tbody>
                {s.watchdog.findings.map((f) => (
                  <tr key={`${f.kind}:${f.id}`} data-finding={f.kind}>
                    <td className="mono">{f.kind.replaceAll('_', ' ')}</td>
                    <td className="mono">{f.kind === 'silent_run' || f.kind === 'job_over_claims' ? <a href={hrefOf({ view: 'run', executionId: f.id })}>{f.id}</a> : f.kind === 'delivery_over_claims' ? <a href={hrefOf({ view: 'deliveries' })}>{f.id}</a> : f.kind === 'schedule_overdue' ? <a href={hrefOf({ view: 'flows' })}>{f.id}</a> : f.id}</td>
                    <td className="excerpt">{f.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title="Backlogs and leases">
        <dl className="header">
          <dt>Jobs not finished</dt>
          <dd>{Object.entries(s.jobs).map(([k, v]) => `${k} ${v}`).join(' · ') || 'none'}</dd>
          <dt>Deliveries</dt>
          <dd>{Object.entries(s.deliveries).map(([k, v]) => `${k.replaceAll('_', ' ')} ${v}`).join(' · ') || 'none'}</dd>
          <dt>Job leases</dt>
          <dd>{s.leases.jobs.map((l) => `${l.owner}: ${l.count}`).join(' · ') || 'none'}</dd>
          <dt>Delivery leases</dt>
          <dd>{s.leases.deliveries.map((l) => `${l.owner}: ${l.count}`).join(' · ') || 'none'}</dd>
        </dl>
      </Section>
    </>
  );
}
