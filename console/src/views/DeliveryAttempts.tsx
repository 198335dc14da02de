import { useQuery } from '@tanstack/react-query';
import { Problem, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { duration, when } from '../format.ts';

/** One delivery from the log: where it goes, its status, and every attempt with its answer, excerpt and timing. */
export function DeliveryAttempts({ deliveryId }: { deliveryId: string }) {
  const client = useClient();
  const history = useQuery({ queryKey: ['deliveries.get', deliveryId], queryFn: () => client.deliveries.get.query({ deliveryId }) });
  if (history.error) return <Problem error={history.error} />;
  const h = history.data;
  if (!h) return <p>Loading…</p>;
  return (
    <div className="delivery" data-delivery-id={deliveryId}>
      <p>
        <StatusChip status={h.status ?? 'unknown'} /> <strong>{h.event}</strong> → <span className="mono">{h.url}</span>
      </p>
      <table className="attempts">
        <thead>
          <tr>
            <th>#</th>
            <th>Started</th>
            <th>Outcome</th>
            <th>HTTP</th>
            <th>Took</th>
            <th>Excerpt</th>
          </tr>
        </thead>
        <tbody>
          {h.attempts.map((a, i) => (
            <tr key={i}>
              <td>{a.attempt}</td>
              <td>{when(a.startedAt)}</td>
              <td>{a.outcome ? <StatusChip status={a.outcome} /> : 'in flight'}</td>
              <td>{a.responseStatus ?? '—'}</td>
              <td>{duration(a.durationMs)}</td>
              <td className="excerpt">{a.errorExcerpt ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {h.redeliveries.length > 0 ? <p className="muted">Redelivered {h.redeliveries.length} time(s), last {when(h.redeliveries.at(-1)?.requestedAt)}</p> : null}
    </div>
  );
}
