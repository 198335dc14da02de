import type { FailureReason } from '../domain/execution/executionEvents.ts';
import type { ResultObject } from '../domain/execution/outputShape.ts';
import type { WaitingFor } from '../domain/execution/waitingFor.ts';
import type { PauseData } from './pauseData.ts';

/** How a call of the step runner (runSteps.ts) left its run: ended, paused for the caller's tools, or waiting for a person. */
export type ExecutionOutcome =
  | { status: 'completed'; executionId: string; result: ResultObject; position: number }
  | ({ status: 'paused'; position: number } & PauseData)
  /** An approval block waits for a person (recorded): the run goes on, as a job, once decided. */
  | { status: 'waiting'; executionId: string; waitingFor: WaitingFor; accumulatedOutputs: Record<string, unknown>; position: number }
  | { status: 'failed'; executionId: string; reason: FailureReason; code: string; message: string; stepIndex: number | null; blockName: string | null; position: number };
