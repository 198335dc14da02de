import { useQuery } from '@tanstack/react-query';
import { Json, Problem } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { duration } from '../format.ts';

/** One block's execution in a run: the rendered prompt (llm) or input, system prompt and settings, the output, model, usage, attempts, and the replies refused. */
export function StepDetail({ executionId, stepId, iteration }: { executionId: string; stepId: string; iteration: number | null }) {
  const client = useClient();
  const trace = useQuery({ queryKey: ['runs.stepTrace', executionId, stepId], queryFn: () => client.runs.stepTrace.query({ executionId, stepId }) });
  if (trace.error) return <Problem error={trace.error} />;
  const execution = trace.data?.executions.find((e) => e.iteration === iteration);
  if (!execution) return <p>Loading…</p>;
  return (
    <div className="step-detail">
      {execution.prompt !== null ? (
        <>
          <h4>Rendered prompt</h4>
          <Json value={execution.prompt} />
        </>
      ) : (
        <>
          <h4>Input</h4>
          <Json value={execution.input} />
        </>
      )}
      {execution.systemPrompt !== null ? (
        <>
          <h4>System prompt</h4>
          <Json value={execution.systemPrompt} />
        </>
      ) : null}
      {execution.settings && Object.keys(execution.settings).length > 0 ? (
        <>
          <h4>Model settings</h4>
          <Json value={execution.settings} />
        </>
      ) : null}
      {execution.missingPlaceholders.length > 0 ? <p className="warn">Empty placeholders: {execution.missingPlaceholders.join(', ')}</p> : null}
      <h4>Output</h4>
      <Json value={execution.output} />
      <p className="muted">
        {execution.model ?? 'no model'} · {execution.usage ? `${execution.usage.promptTokens} + ${execution.usage.completionTokens} tokens` : 'no tokens'} · {duration(execution.latencyMs)} · {execution.attempts ?? 0} attempt(s) · {execution.toolRounds} tool round(s)
      </p>
      {execution.replies.length > 0 ? (
        <>
          <h4>Replies refused</h4>
          <ol className="replies">
            {execution.replies.map((reply, i) => (
              <li key={i}>
                <p className="warn">
                  {reply.rejection ?? 'not refused'} · {reply.usage ? `${reply.usage.totalTokens} tokens` : 'no tokens'} · {reply.replyLength} characters{reply.replyLength > reply.reply.length ? ' (cut)' : ''}
                </p>
                <Json value={reply.reply} />
              </li>
            ))}
          </ol>
        </>
      ) : execution.validationErrors.length > 0 ? (
        <Json value={execution.validationErrors} />
      ) : null}
      {execution.error ? (
        <p className="problem">
          {execution.error.code}: {String(execution.error.message)}
          {execution.error.detail ? <span className="failure-detail">: {execution.error.detail === 'erased' ? <em>detail erased with the run's data</em> : String(execution.error.detail)}</span> : null}
        </p>
      ) : null}
    </div>
  );
}
