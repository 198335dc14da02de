import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Inputs } from '../client.ts';
import { LiveMarker, Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { duration, shortId, when } from '../format.ts';
import { useLiveRefresh } from '../liveUpdates.ts';
import { hrefOf } from '../route.ts';
import { ActivityChart } from './ActivityChart.tsx';
import { ApprovalsPanel } from './ApprovalsPanel.tsx';
import { RunSearch } from './RunSearch.tsx';
import { runStatuses } from '../../../src/domain/execution/runStatus.ts';

type Filters = Omit<Inputs['runs']['list'], 'cursor' | 'limit'>;
const STATUSES = runStatuses;

/**
 * Runs newest first, with every filter of `runs.list`, kept current by the live event stream. Test
 * and backtest runs are left out until asked for: the list is production traffic first. The search box finds a
 * run by its execution id or Idempotency-Key, and an API key's runs.
 */
export function RunsView() {
  const client = useClient();
  const [filters, setFilters] = useState<Filters>({ kind: 'production' });
  const organizations = useQuery({ queryKey: ['organizations.list'], queryFn: () => client.organizations.list.query() });
  const runs = useInfiniteQuery({
    queryKey: ['runs.list', filters],
    queryFn: ({ pageParam }) => client.runs.list.query({ ...filters, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const live = useLiveRefresh([['runs.list'], ['runs.activity']], ['Execution', 'JobClaimed', 'Delivery']);
  const set = (patch: Partial<Filters>) => setFilters((current) => Object.fromEntries(Object.entries({ ...current, ...patch }).filter(([, v]) => v !== undefined && v !== '')) as Filters);
  const projects = organizations.data?.find((o) => o.organizationId === filters.organizationId)?.projects ?? [];
  const flows = useQuery({ queryKey: ['flows.list', filters.projectId], queryFn: () => client.flows.list.query({ projectId: filters.projectId! }), enabled: filters.projectId !== undefined });
  const items = runs.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <>
    <ApprovalsPanel />
    <Section title="Runs" actions={<LiveMarker state={live} />}>
      <RunSearch onApiKey={(apiKeyId) => set({ apiKeyId })} />
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Run filters">
        <label>
          Organization
          <select value={filters.organizationId ?? ''} onChange={(e) => set({ organizationId: e.target.value || undefined, projectId: undefined, flowId: undefined })}>
            <option value="">all</option>
            {organizations.data?.map((o) => (
              <option key={o.organizationId} value={o.organizationId}>
                {o.slug}
              </option>
            ))}
          </select>
        </label>
        <label>
          Project
          <select value={filters.projectId ?? ''} onChange={(e) => set({ projectId: e.target.value || undefined, flowId: undefined })} disabled={projects.length === 0}>
            <option value="">all</option>
            {projects.map((p) => (
              <option key={p.projectId} value={p.projectId}>
                {p.slug}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="statuses">
          <legend>Status</legend>
          {STATUSES.map((status) => (
            <label key={status} className="check">
              <input
                type="checkbox"
                name="status"
                value={status}
                checked={filters.status?.includes(status) ?? false}
                onChange={(e) => {
                  const next = e.target.checked ? [...(filters.status ?? []), status] : (filters.status ?? []).filter((s) => s !== status);
                  set({ status: next.length ? next : undefined });
                }}
              />
              {status === 'paused' ? 'paused for tools' : status === 'waiting' ? 'waiting for approval' : status}
            </label>
          ))}
        </fieldset>
        <label>
          Kind
          <select name="kind" value={filters.kind ?? ''} onChange={(e) => set({ kind: (e.target.value || undefined) as Filters['kind'] })}>
            <option value="production">production</option>
            <option value="test">test runs</option>
            <option value="backtest">backtest runs</option>
            <option value="subflow">child runs (flow blocks)</option>
            <option value="">all runs</option>
          </select>
        </label>
        <label>
          Flow
          <select name="flow" value={filters.flowId ?? ''} onChange={(e) => set({ flowId: e.target.value || undefined })} disabled={!flows.data?.length}>
            <option value="">{filters.projectId ? 'all' : 'choose a project'}</option>
            {flows.data?.map((f) => (
              <option key={f.flowId} value={f.flowId}>
                {f.name} ({f.slug})
              </option>
            ))}
          </select>
        </label>
        <label>
          API key id
          <input value={filters.apiKeyId ?? ''} onChange={(e) => set({ apiKeyId: e.target.value.trim() || undefined })} placeholder="any" />
        </label>
        <label>
          From
          <input type="datetime-local" onChange={(e) => set({ from: e.target.value ? new Date(e.target.value).toISOString() : undefined })} />
        </label>
        <label>
          To
          <input type="datetime-local" onChange={(e) => set({ to: e.target.value ? new Date(e.target.value).toISOString() : undefined })} />
        </label>
      </form>
      <ActivityChart organizationId={filters.organizationId} projectId={filters.projectId} flowId={filters.flowId} kind={filters.kind ?? 'all'} apiKeyId={filters.apiKeyId} />
      {runs.error ? <Problem error={runs.error} /> : null}
      <div className="table-wrap">
        <table className="runs">
          <thead>
            <tr>
              <th>Started</th>
              <th>Flow</th>
              <th>Mode</th>
              <th>Status</th>
              <th>Webhooks</th>
              <th>Duration</th>
              <th>Run</th>
            </tr>
          </thead>
          <tbody>
            {items.map((run) => (
              <tr key={run.executionId} data-execution-id={run.executionId}>
                <td>{when(run.createdAt)}</td>
                <td>
                  {run.flowSlug ?? shortId(run.flowId)} <small>v{run.versionNumber}</small>
                </td>
                <td>
                  {run.mode}
                  {run.rerunOf ? <small> rerun</small> : null}
                  {run.startedVia === 'mcp' ? <small className="by-assistant"> by an assistant</small> : null}
                  {run.scheduleId ? <small className="by-schedule" title={`schedule ${run.scheduleId}`}> scheduled</small> : null}
                  {run.dataErasedAt ? <small className="data-erased"> data erased</small> : null}
                </td>
                <td>
                  <StatusChip status={run.status} detail={run.status === 'retrying' ? `claim ${run.claims}` : run.failureCode ?? undefined} />
                </td>
                <td>
                  {run.deliveries.map((d) => (
                    <StatusChip key={d.deliveryId} status={d.status} />
                  ))}
                </td>
                <td>{duration(run.durationMs)}</td>
                <td>
                  <a href={hrefOf({ view: 'run', executionId: run.executionId })}>{shortId(run.executionId)}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {runs.isPending ? <p>Loading…</p> : items.length === 0 ? <p className="empty">No runs match these filters.</p> : null}
      {runs.hasNextPage ? (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          Older runs
        </button>
      ) : null}
    </Section>
    </>
  );
}
