import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Json, LiveMarker, Problem, Section, StatusChip } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { duration, shortId, usd, when } from '../format.ts';
import { useLiveRefresh } from '../liveUpdates.ts';
import { hrefOf } from '../route.ts';
import { DeliveryAttempts } from './DeliveryAttempts.tsx';
import { StepDetail } from './StepDetail.tsx';
import { Waterfall, type WaterfallStep } from './Waterfall.tsx';

interface Step extends WaterfallStep {
  stepIndex: number;
  processorType: string;
  startedAt: string;
  model?: string | null;
  usage?: { totalTokens: number } | null;
  costUsd?: number | null;
  fallbacks?: { model: string; code: string; message: string }[];
  attempts?: number;
  /** A skipped step's run_if and the values it read. */
  condition?: string;
  conditionValues?: Record<string, unknown>;
  /** A switch's branch that was not chosen: the one chosen instead, and whether its case was decided. */
  branch?: { chosen: string | null; evaluated: boolean };
  /** A flow step's child run. */
  subflow?: { executionId: string; flowId: string; versionNumber: number };
}

/** One run from the log: header, timeline of steps (expand one for its prompt and output), tool rounds, deliveries and their attempts. */
export function RunDetailView({ executionId }: { executionId: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const run = useQuery({ queryKey: ['runs.get', executionId], queryFn: () => client.runs.get.query({ executionId }) });
  const deliveries = useQuery({ queryKey: ['deliveries.list', { executionId }], queryFn: () => client.deliveries.list.query({ executionId, limit: 20 }) });
  const live = useLiveRefresh([['runs.get', executionId], ['deliveries.list'], ['deliveries.get']], ['Execution', 'JobClaimed', 'Delivery'], { executionId });
  const refresh = () => void queryClient.invalidateQueries();
  const rerun = useMutation({ mutationFn: () => client.runs.rerun.mutate({ executionId }), onSuccess: (done) => (window.location.hash = hrefOf({ view: 'run', executionId: done.executionId })) });
  const asTestCase = useMutation({ mutationFn: (name: string) => client.backtests.testCaseFromRun.mutate({ executionId, ...(name ? { name } : {}) }) });
  const cancel = useMutation({ mutationFn: (reason: string) => client.runs.cancel.mutate({ executionId, ...(reason ? { reason } : {}) }), onSuccess: refresh });
  const erase = useMutation({ mutationFn: (reason: string) => client.runs.eraseData.mutate({ executionId, reason }), onSuccess: refresh });
  const exportAudit = useMutation({
    mutationFn: () => client.audit.exportRun.query({ executionId }),
    onSuccess: ({ lines }) => {
      const url = URL.createObjectURL(new Blob([lines.map((line) => JSON.stringify(line)).join('\n') + '\n'], { type: 'application/x-ndjson' }));
      const a = Object.assign(document.createElement('a'), { href: url, download: `run-${executionId}.audit.jsonl` });
      a.click();
      URL.revokeObjectURL(url);
    },
  });

  if (run.error) return <Problem error={run.error} />;
  if (!run.data) return <p>Loading…</p>;
  const r = run.data;
  const steps = r.steps as unknown as Step[];
  const ended = r.status === 'completed' || r.status === 'failed';
  return (
    <>
      <Section
        title={`Run ${shortId(executionId)}`}
        actions={
          <>
            <LiveMarker state={live} />
            {!r.dataErased ? (
              <button type="button" onClick={() => rerun.mutate()} disabled={rerun.isPending} title="Same input, same version, linked">
                Rerun
              </button>
            ) : null}
            {!ended ? (
              <button type="button" className="danger" onClick={() => cancel.mutate(window.prompt('Why cancel this run? (recorded with your name)') ?? '')} disabled={cancel.isPending}>
                Cancel run
              </button>
            ) : null}
            <button type="button" onClick={() => exportAudit.mutate()} disabled={exportAudit.isPending}>
              Export audit
            </button>
            {ended && !r.dataErased ? (
              <button
                type="button"
                className="danger erase-data"
                onClick={() => {
                  const reason = window.prompt("Erase this run's input, prompts, outputs, replies and tool data for good? Why (recorded with your name):");
                  if (reason) erase.mutate(reason);
                }}
                disabled={erase.isPending}
                title="Removes the run's data key: what the run did stays, and the log still verifies"
              >
                Erase data
              </button>
            ) : null}
            {ended && !r.dataErased ? (
              <button
                type="button"
                className="make-test-case"
                onClick={() => {
                  const name = window.prompt('A test case of this flow with this input and an equals assertion on this result. Its name:', `from run ${shortId(executionId)}`);
                  if (name !== null) asTestCase.mutate(name);
                }}
                disabled={asTestCase.isPending}
                title="Input, tool results and this result as a test case of its flow"
              >
                Make test case
              </button>
            ) : null}
          </>
        }
      >
        {r.dataErased ? (
          <p className="notice data-erased" role="status">
            Data erased {when(r.dataErased.at)} ({r.dataErased.trigger === 'retention' ? 'retention period' : `by ${r.dataErased.by?.kind ?? 'someone'} ${r.dataErased.by?.id ?? ''}`}: {r.dataErased.reason}). Its input, prompts, outputs and tool data read as erased; its timeline, tokens and cost stay.
          </p>
        ) : null}
        {[rerun.error, cancel.error, erase.error, exportAudit.error, asTestCase.error].map((error, i) => (error ? <Problem key={i} error={error} /> : null))}
        {asTestCase.data ? (
          <p className="notice" role="status">
            Test case “{asTestCase.data.name}” added to its flow ({shortId(asTestCase.data.testCaseId)}){asTestCase.data.warnings.length ? `: ${asTestCase.data.warnings.join('; ')}` : ''}
          </p>
        ) : null}
        <dl className="header">
          <dt>Status</dt>
          <dd>
            <StatusChip status={r.status} detail={r.failure ? `${r.failure.reason}: ${r.failure.code}` : undefined} />
          </dd>
          <dt>Execution id</dt>
          <dd className="mono">{r.executionId}</dd>
          <dt>Flow</dt>
          <dd className="run-flow">
            {r.flow ? (
              <>
                {r.flow.name} <span className="mono">{r.flow.slug}</span>
              </>
            ) : (
              <span className="mono">{r.flowId}</span>
            )}{' '}
            <small>v{r.version.number}</small>
          </dd>
          <dt>Mode</dt>
          <dd>{r.mode}</dd>
          {r.parent ? (
            <>
              <dt>Started by</dt>
              <dd className="run-parent">
                the flow block <span className="mono">{r.parent.blockName}</span> of run <a href={hrefOf({ view: 'run', executionId: r.parent.executionId })}>{shortId(r.parent.executionId)}</a>
              </dd>
            </>
          ) : null}
          <dt>Requested</dt>
          <dd>{when(r.requestedAt)}</dd>
          <dt>Duration</dt>
          <dd>{duration(r.durationMs)}</dd>
          <dt>Credits</dt>
          <dd>{r.tokens} tokens</dd>
          <dt>Cost</dt>
          <dd className="run-cost">{r.tokens > 0 || r.costUsd !== null ? usd(r.costUsd) : '—'}</dd>
          <dt>Input</dt>
          <dd className="run-input">
            <Json value={r.input} />
          </dd>
          {r.failure ? (
            <>
              <dt>Failure</dt>
              <dd>
                {r.failure.message}
                {r.failure.detail ? <span className="failure-detail">: {r.failure.detail === 'erased' ? <em>detail erased with the run's data</em> : String(r.failure.detail)}</span> : null}
                {r.failure.step ? <small> (in {r.failure.step})</small> : null}
              </dd>
            </>
          ) : null}
        </dl>
      </Section>
      <Section title="Timeline">
        {steps.length > 0 ? <Waterfall steps={steps} runDurationMs={r.durationMs} /> : null}
        <ol className="timeline">
          {steps.map((step) => {
            const key = `${step.stepId}:${step.iteration ?? ''}`;
            return (
              <li key={key} className={`step step-${step.status}`}>
                <button type="button" className="step-head" aria-expanded={open === key} onClick={() => setOpen(open === key ? null : key)}>
                  <span className="step-name">{step.name}</span>
                  {step.iteration !== null ? <small>item {step.iteration}</small> : null}
                  {step.processorType ? <span className="muted">{step.processorType}</span> : null}
                  <StatusChip status={step.status} />
                  <span>{duration(step.durationMs)}</span>
                  {step.usage ? <span className="muted">{step.usage.totalTokens} tokens</span> : null}
                  {step.usage ? <span className="muted step-cost">{usd(step.costUsd)}</span> : null}
                  {step.model ? <span className="muted mono">{step.model}</span> : null}
                  {step.fallbacks?.length ? (
                    <span className="muted step-fallbacks" title={step.fallbacks.map((f) => `${f.model}: ${f.code}, ${f.message}`).join('\n')}>
                      after {step.fallbacks.map((f) => f.model).join(', ')}
                    </span>
                  ) : null}
                </button>
                {step.subflow ? (
                  <a className="step-child" href={hrefOf({ view: 'run', executionId: step.subflow.executionId })}>
                    child run {shortId(step.subflow.executionId)} (v{step.subflow.versionNumber})
                  </a>
                ) : null}
                {open === key ? (
                  step.status === 'skipped' ? (
                    <div className="step-detail">
                      <h4>{step.branch ? `Not chosen: the switch ran ${step.branch.chosen ?? 'no branch'}${step.branch.evaluated ? '' : ' (this case was not reached)'}` : 'Skipped: run_if was not true'}</h4>
                      <Json value={step.condition ?? ''} />
                      <h4>Values it read</h4>
                      <Json value={step.conditionValues ?? {}} />
                    </div>
                  ) : (
                    <StepDetail executionId={executionId} stepId={step.stepId} iteration={step.iteration} />
                  )
                ) : null}
              </li>
            );
          })}
        </ol>
        {r.toolRounds.length > 0 ? (
          <>
            <h3>Tool rounds</h3>
            <ul className="tool-rounds">
              {(r.toolRounds as { kind: string; name: string; at: string; toolCalls?: { name: string }[] }[]).map((round, i) => (
                <li key={i}>
                  {when(round.at)} · {round.name}: {round.kind === 'paused' ? `asked for ${round.toolCalls?.map((c) => c.name).join(', ')}` : 'resumed with results'}
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {r.result ? (
          <>
            <h3>Result</h3>
            <pre className="json">{JSON.stringify(r.result, null, 2)}</pre>
          </>
        ) : null}
      </Section>
      <Section title="Deliveries">
        {deliveries.error ? <Problem error={deliveries.error} /> : null}
        {deliveries.data?.items.length === 0 ? <p className="empty">No webhook deliveries for this run.</p> : null}
        {deliveries.data?.items.map((d) => <DeliveryAttempts key={d.deliveryId} deliveryId={d.deliveryId} />)}
      </Section>
    </>
  );
}
