import type { ChildRunRequest, ChildRuns } from './childRuns.ts';
import { continueExecution } from './continueExecution.ts';
import type { EngineDependencies } from './engineDependencies.ts';
import { prepareExecution } from './flowEngine.ts';

/**
 * The engine's entry points as a `flow` block uses them. A child is a run of mode `subflow`, with a
 * stream and a data key of its own, started by its parent (a system principal naming it). Its
 * request is appended durably before its steps run (its id is already in the parent's log). A
 * child is continued with a claim, like a job taken over: a worker of the parent's that is still
 * alive finds the child's stream moved and stops at its next append.
 */
export function createChildRuns(engine: () => EngineDependencies): ChildRuns {
  const principalOf = (parentExecutionId: string) => ({ kind: 'system' as const, id: `subflow-of:${parentExecutionId}` });
  return {
    async start(request: ChildRunRequest) {
      const prepared = await prepareExecution(
        engine(),
        {
          ...request,
          attachments: [],
          tools: undefined,
          mode: 'subflow',
          apiKeyId: null,
          principal: principalOf(request.parent.executionId),
          ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
        },
        { idLeavesEarly: true },
      );
      return prepared.start();
    },
    continue: (executionId, claim) => {
      const deps = engine();
      return continueExecution(deps, { executionId, worker: deps.runner ?? 'subflow', claim, principal: { kind: 'system', id: `subflow-takeover:${executionId}` }, loadSteps: (versionId) => deps.flows.versionSteps(versionId) });
    },
  };
}
