import { duration } from '../format.ts';

export interface WaterfallStep {
  stepId: string;
  name: string;
  iteration: number | null;
  status: string;
  /** ms after the run was requested that the step began. */
  offsetMs?: number;
  durationMs?: number;
  modelCalls?: { startMs: number; durationMs: number; outcome: 'answered' | 'failed' }[];
  /** An http step's requests (each attempt), drawn as a model step's calls are. */
  requests?: { startMs: number; durationMs: number; status: number | null; outcome: 'answered' | 'failed' }[];
}

/** What a step sent out, in its bar: its model requests, or its http requests. */
const callsOf = (step: WaterfallStep) => [...(step.modelCalls ?? []).map((call) => ({ ...call, what: 'model request' })), ...(step.requests ?? []).map((request) => ({ ...request, what: `request (${request.status ?? 'no answer'})` }))];

/** More than one request (a retry, a repair, a fallback) is said beside the step's time, not only drawn inside its bar. */
const requestsNote = (calls: { outcome: 'answered' | 'failed' }[]) => {
  if (calls.length < 2) return null;
  const failed = calls.filter((call) => call.outcome === 'failed').length;
  return <small className="waterfall-requests"> · {calls.length} requests{failed > 0 ? `, ${failed} failed` : ''}</small>;
};

const percent = (part: number, whole: number) => `${Math.min(100, Math.max(0, (part / whole) * 100)).toFixed(2)}%`;

/**
 * The run laid out in time: one row per step execution, its bar where it began and as long as it
 * took, and inside its bar each request it sent (a model's, an http block's; a failed one marked). A step still
 * running reaches to now; the scale is the run's duration (or the latest step's end while it runs).
 */
export function Waterfall({ steps, runDurationMs }: { steps: WaterfallStep[]; runDurationMs: number | null }) {
  const ends = steps.map((s) => (s.offsetMs ?? 0) + (s.durationMs ?? 0));
  const scale = Math.max(1, runDurationMs ?? 0, ...ends);
  return (
    <div className="waterfall" role="table" aria-label="Steps in time">
      <div className="waterfall-axis" role="row">
        <span role="columnheader">step</span>
        <span role="columnheader">
          0 <span className="waterfall-end">{duration(scale)}</span>
        </span>
      </div>
      {steps.map((step) => (
        <div key={`${step.stepId}:${step.iteration ?? ''}`} className="waterfall-row" role="row" data-step={step.name}>
          <span className="waterfall-name" role="rowheader">
            {step.name}
            {step.iteration !== null ? <small> #{step.iteration}</small> : null}
          </span>
          <span className="waterfall-track" role="cell">
            <span
              className={`waterfall-bar bar-${step.status}`}
              style={{ left: percent(step.offsetMs ?? 0, scale), width: step.durationMs === undefined ? undefined : `max(2px, ${percent(step.durationMs, scale)})` }}
              title={`${step.name}: ${step.status}, began at +${duration(step.offsetMs ?? 0)}, took ${duration(step.durationMs ?? null)}`}
            >
              {callsOf(step).map((call, i) => (
                <span
                  key={i}
                  className={`waterfall-call call-${call.outcome}`}
                  style={{ left: percent(call.startMs, Math.max(1, step.durationMs ?? 1)), width: `max(2px, ${percent(call.durationMs, Math.max(1, step.durationMs ?? 1))})` }}
                  title={`${call.what} ${i + 1}: ${call.outcome}, ${duration(call.durationMs)}`}
                />
              ))}
            </span>
            <span className="waterfall-label">
              {step.status === 'skipped' ? 'skipped' : duration(step.durationMs ?? null)}
              {requestsNote(callsOf(step))}
            </span>
          </span>
        </div>
      ))}
    </div>
  );
}
