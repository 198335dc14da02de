import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createRunMetrics } from '../../src/observability/runMetrics.ts';

const state = { status: 'none' } as ExecutionState;
const block = (executionId: string) => ({ executionId, stepIndex: 0, blockName: 'relay', iteration: null });
const started = (executionId: string, processorType: string) => ({ type: 'ExecutionStepStarted', data: { ...block(executionId), processorType } }) as unknown as ExecutionEvent;
const completed = (executionId: string) => ({ type: 'ExecutionStepCompleted', data: { ...block(executionId), durationMs: 5, model: null } }) as unknown as ExecutionEvent;

/** How many blocks the step histogram counted, by processor type. */
async function counted(metrics: ReturnType<typeof createMetrics>) {
  const { values } = await metrics.stepDuration.get();
  return Object.fromEntries(values.filter((v) => v.metricName === 'seqflow_step_duration_seconds_count').map((v) => [v.labels.processor_type, v.value]));
}

describe('step metrics by processor type', () => {
  it('counts each completed block under the type its start named, the start and end in one append or apart', async () => {
    const metrics = createMetrics();
    const runs = createRunMetrics(metrics);
    runs.recorded([started('a', 'passthrough'), completed('a')], state);
    runs.recorded([started('b', 'code')], state);
    runs.recorded([started('c', 'llm')], state);
    runs.recorded([completed('c')], state);
    runs.recorded([completed('b')], state);
    // A completion that tells its start (joinedStepStarts.ts) names the type itself.
    runs.recorded([{ ...completed('d'), data: { ...completed('d').data, started: { processorType: 'code' } } } as ExecutionEvent], state);
    expect(await counted(metrics)).toEqual({ passthrough: 1, code: 2, llm: 1 });
  });

  it('keeps at most 10,000 blocks that never ended: the oldest is forgotten first, and counted as unknown if it ends after all', async () => {
    const metrics = createMetrics();
    const runs = createRunMetrics(metrics);
    for (let i = 0; i <= 10_000; i++) runs.recorded([started(`run-${i}`, 'code')], state);
    runs.recorded([completed('run-0'), completed('run-1'), completed('run-10000')], state);
    expect(await counted(metrics)).toEqual({ unknown: 1, code: 2 });
  });
});
