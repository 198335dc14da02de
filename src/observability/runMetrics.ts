import type { ExecutionState } from '../domain/execution/execution.ts';
import type { ExecutionEvent } from '../domain/execution/executionEvents.ts';
import { createBoundedMap } from '../collections/boundedMap.ts';
import { boundedLabel } from './boundedLabel.ts';
import type { Metrics } from './metrics.ts';

/** Flows a process names in its run metrics; runs of later ones are counted under `other`. */
const FLOW_LABELS = 1000;

/** Told of every append of a run, with the run's state after it (the run recorder calls it). */
export interface RecordedRunObserver {
  recorded(events: ExecutionEvent[], state: ExecutionState): void;
}

/** A run's end as a metric outcome: `completed`, `failed` (an error), or the failure's other reason. */
const outcomeOf = (event: Extract<ExecutionEvent, { type: 'ExecutionFailed' }>) => (event.data.reason === 'error' ? 'failed' : event.data.reason);

/** Blocks whose processor type is kept between their start and their end, at most. */
const OPEN_BLOCKS = 10_000;

/**
 * Run, step and claim metrics from what the run recorders of this process append: the recorder
 * knows the run's flow and mode, whichever process accepted it. A block's processor type is known
 * from its start, kept until it completes (bounded: a run cut mid-block leaves an entry that ages out).
 * Flow ids past the first FLOW_LABELS are counted as `other`.
 */
export function createRunMetrics(metrics: Metrics): RecordedRunObserver {
  // Not an lru-cache: deleting its last entry emptied all its slots, which a one-block run did each
  // time (3% of a passthrough run's CPU in the profile).
  const processorTypes = createBoundedMap<string, string>(OPEN_BLOCKS);
  const flowLabel = boundedLabel(FLOW_LABELS);
  const blockKey = (data: { executionId: string; stepIndex: number; blockName: string; iteration: number | null }) => `${data.executionId}\u0000${data.stepIndex}\u0000${data.blockName}\u0000${data.iteration ?? ''}`;

  return {
    recorded(events: ExecutionEvent[], state: ExecutionState) {
      const run = state.status === 'none' ? { flow_id: 'unknown', mode: 'unknown' } : { flow_id: flowLabel(state.flowId), mode: state.mode };
      for (const event of events) {
        switch (event.type) {
          case 'ExecutionStepStarted':
            processorTypes.set(blockKey(event.data), event.data.processorType);
            break;
          case 'ExecutionStepCompleted':
          case 'ExecutionStepFailed': {
            const key = blockKey(event.data);
            // A completion that tells its start (joinedStepStarts.ts) names its processor itself.
            const told = event.type === 'ExecutionStepCompleted' ? event.data.started?.processorType : undefined;
            metrics.stepDuration.observe({ processor_type: told ?? processorTypes.get(key) ?? (event.data.model ? 'llm' : 'unknown') }, event.data.durationMs / 1000);
            processorTypes.delete(key);
            break;
          }
          case 'ExecutionCompleted':
            metrics.runEnded(run.flow_id, run.mode, 'completed');
            break;
          case 'ExecutionFailed':
            metrics.runEnded(run.flow_id, run.mode, outcomeOf(event));
            break;
          case 'JobClaimed':
            metrics.jobClaims.inc();
            break;
        }
      }
    },
  };
}
