import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LiveMarker, Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { duration, shortId, when } from '../format.ts';
import { useLiveRefresh } from '../liveUpdates.ts';
import { hrefOf } from '../route.ts';
import { sideBySide } from '../resultRows.ts';

/** How often a running backtest is read again, besides the live events. */
const RUNNING_POLL_MS = 1000;

/**
 * A flow's backtests: start one (the draft or a version, on the last N production runs), watch it
 * fill in live, open one, and open a pair side by side with the changed paths highlighted.
 */
export function FlowBacktests({ flowId }: { flowId: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const versions = useQuery({ queryKey: ['flows.versions', flowId], queryFn: () => client.flows.versions.query({ flowId }) });
  // Live events refetch it; while one is running it is also polled: a refetch an event caused may
  // read the read model just before that event reached it, and no later event would come to fix it.
  const list = useQuery({
    queryKey: ['backtests.list', flowId],
    queryFn: () => client.backtests.list.query({ flowId }),
    refetchInterval: (query) => (query.state.data?.some((b) => b.status === 'running') ? RUNNING_POLL_MS : false),
  });
  const [target, setTarget] = useState<string>('draft');
  const [last, setLast] = useState('20');
  const [openId, setOpenId] = useState<string | null>(null);
  const live = useLiveRefresh([['backtests.list', flowId], ['backtests.get']], ['Backtest']);
  const start = useMutation({
    mutationFn: () => client.backtests.start.mutate({ flowId, target: target === 'draft' ? 'draft' : Number(target), last: Number(last) }),
    onSuccess: (started) => {
      setOpenId(started.backtestId);
      void queryClient.invalidateQueries({ queryKey: ['backtests.list', flowId] });
    },
  });
  return (
    <Section title="Backtests" actions={<LiveMarker state={live} />}>
      <form
        className="filters backtest-start"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate();
        }}
      >
        <label>
          Replay on
          <select name="target" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="draft">the draft</option>
            {[...(versions.data ?? [])].reverse().map((v) => (
              <option key={v.versionId} value={v.number}>
                v{v.number}
                {v.production ? ' (production)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          Last runs
          <input name="last" type="number" min={1} max={1000} required value={last} onChange={(e) => setLast(e.target.value)} />
        </label>
        <button type="submit" disabled={start.isPending}>
          Start backtest
        </button>
      </form>
      {start.error ? <Problem error={start.error} /> : null}
      {list.error ? <Problem error={list.error} /> : null}
      {list.data?.length ? (
        <div className="table-wrap">
          <table className="backtests">
            <thead>
              <tr>
                <th>Started</th>
                <th>Target</th>
                <th>Status</th>
                <th>Compared</th>
                <th>Same</th>
                <th>Different</th>
                <th>Failed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((b) => (
                <tr key={b.backtestId} data-backtest-id={b.backtestId} className={b.backtestId === openId ? 'selected' : undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => setOpenId(b.backtestId)}>
                      {when(b.startedAt)}
                    </button>
                  </td>
                  <td>{b.target.kind === 'draft' ? 'draft' : `v${b.target.number}`}</td>
                  <td>
                    <StatusChip status={b.status} />
                  </td>
                  <td>
                    <progress max={b.summary.total} value={b.summary.compared + b.summary.erased} /> {b.summary.compared}/{b.summary.total}
                    {b.summary.erased > 0 ? ` (${b.summary.erased} erased, not compared)` : ''}
                  </td>
                  <td>{b.summary.same}</td>
                  <td className={b.summary.different > 0 ? 'changed' : undefined}>{b.summary.different}</td>
                  <td className={b.summary.failed > 0 ? 'removed' : undefined}>{b.summary.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : list.data ? (
        <p className="empty">No backtests of this flow yet.</p>
      ) : null}
      {openId ? <BacktestPairs backtestId={openId} /> : null}
    </Section>
  );
}

/** One backtest's pairs in the order it chose the runs; a pair opens side by side. */
function BacktestPairs({ backtestId }: { backtestId: string }) {
  const client = useClient();
  const [onlyChanged, setOnlyChanged] = useState(false);
  const [pair, setPair] = useState<string | null>(null);
  const page = useQuery({
    queryKey: ['backtests.get', backtestId, onlyChanged],
    queryFn: () => client.backtests.get.query({ backtestId, onlyChanged, limit: 200 }),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_POLL_MS : false),
  });
  if (page.error) return <Problem error={page.error} />;
  if (!page.data) return <p>Loading…</p>;
  return (
    <div className="backtest">
      <h3>
        Backtest <span className="mono">{shortId(backtestId)}</span> on {page.data.target.kind === 'draft' ? 'the draft' : `v${page.data.target.number}`}
      </h3>
      <label>
        <input type="checkbox" checked={onlyChanged} onChange={(e) => setOnlyChanged(e.target.checked)} /> only changed answers
      </label>
      <div className="table-wrap">
        <table className="pairs">
          <thead>
            <tr>
              <th>Recorded run</th>
              <th>Outcome</th>
              <th>Changed paths</th>
              <th>Recorded</th>
              <th>Replay</th>
            </tr>
          </thead>
          <tbody>
            {page.data.pairs.map((p) => (
              <tr key={p.position} data-execution-id={p.executionId} className={p.executionId === pair ? 'selected' : undefined}>
                <td>
                  <button type="button" className="link mono" onClick={() => setPair(p.executionId)} disabled={p.outcome === null}>
                    {shortId(p.executionId)}
                  </button>
                </td>
                <td>{p.outcome ? <StatusChip status={p.outcome} /> : <StatusChip status="queued" />}</td>
                <td className="mono">{p.changes.map((c) => c.path || '(whole)').join(', ')}{p.more > 0 ? ` and ${p.more} more` : ''}</td>
                <td>{p.original ? duration(p.original.durationMs) : ''}</td>
                <td>
                  {p.candidate ? duration(p.candidate.durationMs) : ''}
                  {p.candidate?.error ? <small> {p.candidate.error.code}</small> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pair ? <PairSideBySide backtestId={backtestId} executionId={pair} /> : null}
    </div>
  );
}

/** A recorded run and its replay: the input, then every path of both results, the changed ones highlighted. */
function PairSideBySide({ backtestId, executionId }: { backtestId: string; executionId: string }) {
  const client = useClient();
  const pair = useQuery({ queryKey: ['backtests.pair', backtestId, executionId], queryFn: () => client.backtests.pair.query({ backtestId, executionId }) });
  if (pair.error) return <Problem error={pair.error} />;
  if (!pair.data) return <p>Loading…</p>;
  const p = pair.data;
  const rows = sideBySide(p.originalRun.result, p.candidateRun?.result ?? null);
  return (
    <div className="pair">
      <p>
        Input: <span className="mono">{JSON.stringify(p.input?.message ?? null)}</span> · recorded{' '}
        <a href={hrefOf({ view: 'run', executionId: p.executionId })}>{shortId(p.executionId)}</a> ({p.originalRun.status}) · replay{' '}
        <a href={hrefOf({ view: 'run', executionId: p.backtestExecutionId })}>{shortId(p.backtestExecutionId)}</a> ({p.candidateRun?.status ?? 'not run'})
      </p>
      {p.candidateRun?.error ? (
        <div className="problem" role="alert">
          <strong>{p.candidateRun.error.code}</strong> {p.candidateRun.error.message}
        </div>
      ) : null}
      <table className="side-by-side diff">
        <thead>
          <tr>
            <th>Path</th>
            <th>Recorded answer</th>
            <th>Replay</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path} className={row.kind}>
              <td className="mono">{row.path}</td>
              <td className="mono">{row.left}</td>
              <td className="mono">{row.right}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
