import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { hrefOf } from '../route.ts';

const ACTION_LABELS = { pause: 'Pause', resume: 'Resume', remove: 'Remove' } as const;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * A flow's schedules (docs/flows.md#schedules): each with its expression and zone, what it does
 * with missed firings, its next firing and its last (the job it started, or the error that kept it
 * from starting); paused, resumed or removed here as `seqflow schedule` does. Adding one takes an
 * input file: `seqflow schedule add`.
 */
export function FlowSchedules({ flowId }: { flowId: string }) {
  const client = useClient();
  const queries = useQueryClient();
  const schedules = useQuery({ queryKey: ['schedules.list', flowId], queryFn: () => client.schedules.list.query({ flowId }), refetchInterval: 2000 });
  const change = useMutation({
    mutationFn: (input: { scheduleId: string; change: 'pause' | 'resume' | 'remove' }) => client.schedules.change.mutate(input),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['schedules.list', flowId] }),
  });
  return (
    <Section title="Schedules">
      {schedules.error ? <Problem error={schedules.error} /> : null}
      {change.error ? <Problem error={change.error} /> : null}
      {schedules.data && schedules.data.length === 0 ? <p className="muted">No schedules: add one with <code>seqflow schedule add</code>.</p> : null}
      {schedules.data && schedules.data.length > 0 ? (
        <div className="table-wrap">
          <table className="schedules">
            <thead>
              <tr>
                <th>Cron</th>
                <th>Zone</th>
                <th>Missed</th>
                <th>Status</th>
                <th>Next firing</th>
                <th>Last firing</th>
                <th>Fired / skipped</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {schedules.data.map((s) => (
                <tr key={s.scheduleId} data-schedule={s.scheduleId}>
                  <td>
                    <code>{s.cron}</code>
                  </td>
                  <td>{s.timezone}</td>
                  <td>{s.missed}</td>
                  <td className="schedule-status">{s.status}</td>
                  <td>{when(s.nextFiringAt)}</td>
                  <td>
                    {when(s.lastFiredFor)}
                    {s.lastExecutionId ? (
                      <>
                        {' '}
                        <a href={hrefOf({ view: 'run', executionId: s.lastExecutionId })}>run</a>
                      </>
                    ) : null}
                    {s.lastErrorCode ? <span className="problem-code"> {s.lastErrorCode}</span> : null}
                  </td>
                  <td>
                    {s.firedCount} / {s.skippedCount}
                  </td>
                  <td>
                    {(s.status === 'active' ? (['pause', 'remove'] as const) : (['resume', 'remove'] as const)).map((action) => (
                      <button key={action} type="button" disabled={change.isPending} onClick={() => change.mutate({ scheduleId: s.scheduleId, change: action })}>
                        {ACTION_LABELS[action]}
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Section>
  );
}
