import type { ParentLink } from '../domain/blocks/flow/subflowLink.ts';
import type { ExecutionRequest } from './executionRequest.ts';
import type { ExecutionOutcome } from './executionOutcome.ts';

/**
 * A child run as a `flow` block asks for it: the flow and version it runs, its input, and its link
 * to the parent; `traceparent`: the parent step's span, which the child's spans continue.
 */
export type ChildRunRequest = Pick<ExecutionRequest, 'executionId' | 'flowId' | 'versionId' | 'versionNumber' | 'organizationId' | 'projectId' | 'steps' | 'message' | 'parameters'> & {
  parent: ParentLink;
  traceparent: string | undefined;
};

/**
 * How a `flow` block starts and continues its child runs, in the process that runs its parent: the
 * engine's own entry points (src/execution/childRunLauncher.ts), handed to the block as a
 * dependency so the block kinds do not import the engine that runs them.
 */
export interface ChildRuns {
  /** Records the child's request and runs its steps here, to their end. */
  start(request: ChildRunRequest): Promise<ExecutionOutcome>;
  /** Continues a child a dead worker left running (its parent was taken over), from its events; undefined when it has ended. */
  continue(executionId: string, claim: number): Promise<ExecutionOutcome | undefined>;
}
