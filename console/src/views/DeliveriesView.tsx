import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Inputs } from '../client.ts';
import { LiveMarker, Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { shortId, when } from '../format.ts';
import { useLiveRefresh } from '../liveUpdates.ts';
import { hrefOf } from '../route.ts';

type Status = NonNullable<Inputs['deliveries']['list']['status']>[number];
const STATUSES: Status[] = ['dead_letter', 'failed_permanent', 'failed_retry', 'in_flight', 'pending', 'succeeded', 'data_erased', 'data_unreadable'];
const REDELIVERABLE = new Set<string>(['dead_letter', 'failed_permanent']);

/** Deliveries, dead letters first; redeliver one, or every selected one, and watch their status change. */
export function DeliveriesView() {
  const client = useClient();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const deliveries = useInfiniteQuery({
    queryKey: ['deliveries.list', { status }],
    queryFn: ({ pageParam }) => client.deliveries.list.query({ limit: 50, ...(status.length ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const live = useLiveRefresh([['deliveries.list']], ['Delivery']);
  const redeliver = useMutation({
    mutationFn: (deliveryIds: string[]) => client.deliveries.redeliver.mutate({ deliveryIds }),
    onSuccess: () => {
      setSelected(new Set());
      void queryClient.invalidateQueries({ queryKey: ['deliveries.list'] });
    },
  });
  const items = deliveries.data?.pages.flatMap((page) => page.items) ?? [];
  const toggle = (id: string) => setSelected((current) => new Set(current.has(id) ? [...current].filter((x) => x !== id) : [...current, id]));

  return (
    <Section
      title="Deliveries"
      actions={
        <>
          <LiveMarker state={live} />
          <button type="button" onClick={() => redeliver.mutate([...selected])} disabled={selected.size === 0 || redeliver.isPending}>
            Redeliver selected ({selected.size})
          </button>
        </>
      }
    >
      <fieldset className="statuses">
        <legend>Status</legend>
        {STATUSES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" checked={status.includes(s)} onChange={(e) => setStatus(e.target.checked ? [...status, s] : status.filter((x) => x !== s))} />
            {s === 'dead_letter' ? 'dead-lettered' : s.replaceAll('_', ' ')}
          </label>
        ))}
      </fieldset>
      {deliveries.error ? <Problem error={deliveries.error} /> : null}
      {redeliver.error ? <Problem error={redeliver.error} /> : null}
      {redeliver.data?.results
        .filter((r) => r.error)
        .map((r) => (
          <div key={r.deliveryId} className="problem" role="alert">
            {shortId(r.deliveryId)}: <strong>{r.error?.code}</strong> {r.error?.message}
          </div>
        ))}
      <div className="table-wrap">
        <table className="deliveries">
          <thead>
            <tr>
              <th aria-label="Select" />
              <th>Created</th>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Run</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.deliveryId} data-delivery-id={d.deliveryId}>
                <td>{REDELIVERABLE.has(d.status) ? <input type="checkbox" aria-label={`Select ${d.deliveryId}`} checked={selected.has(d.deliveryId)} onChange={() => toggle(d.deliveryId)} /> : null}</td>
                <td>{when(d.createdAt)}</td>
                <td>{d.event}</td>
                <td>
                  <StatusChip status={d.status} />
                </td>
                <td>{d.attempts}</td>
                <td className="excerpt">{d.responseStatus ?? ''} {d.errorExcerpt ?? ''}</td>
                <td>
                  <a href={hrefOf({ view: 'run', executionId: d.executionId })}>{shortId(d.executionId)}</a>
                </td>
                <td>
                  {REDELIVERABLE.has(d.status) ? (
                    <button type="button" onClick={() => redeliver.mutate([d.deliveryId])} disabled={redeliver.isPending}>
                      Redeliver
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {deliveries.isPending ? <p>Loading…</p> : items.length === 0 ? <p className="empty">No deliveries match.</p> : null}
      {deliveries.hasNextPage ? (
        <button type="button" onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
          More
        </button>
      ) : null}
    </Section>
  );
}
