import { ApiError } from '../domain/errors/apiError.ts';
import type { FlowState } from '../domain/flows/flow.ts';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../domain/flows/flowValidation.ts';
import type { TestTarget } from '../domain/testing/testRunEvents.ts';

/** What a test run runs: a published version (by number; default production, else the latest), or a snapshot of the draft. */
export interface ResolvedTarget {
  target: TestTarget;
  steps: StoredStep[];
  versionId: string;
  versionNumber: number;
}

/** `runId` (a test run's or a suite run's) names a draft snapshot: `draft:<runId>`. */
export function resolveTarget(flow: Extract<FlowState, { status: 'created' }>, wanted: { version?: number; draft?: boolean }, runId: string): ResolvedTarget {
  if (wanted.draft) {
    const problems = validateFlowForPublish(flow.draft);
    if (problems.length > 0) throw new ApiError('FLOW_INVALID', `The draft cannot run:\n${problems.join('\n')}`, { problems });
    return { target: { kind: 'draft', steps: flow.draft }, steps: flow.draft, versionId: `draft:${runId}`, versionNumber: 0 };
  }
  const version =
    wanted.version !== undefined
      ? flow.versions.find((v) => v.number === wanted.version)
      : (flow.versions.find((v) => v.versionId === flow.productionVersionId) ?? flow.versions.at(-1));
  if (!version) {
    throw new ApiError('VERSION_NOT_FOUND', wanted.version !== undefined ? `Flow '${flow.slug}' has no version ${wanted.version}` : `Flow '${flow.slug}' has no published version: publish one, or run against the draft`);
  }
  return { target: { kind: 'version', versionId: version.versionId, number: version.number }, steps: version.steps, versionId: version.versionId, versionNumber: version.number };
}

/** What a run on `resolved` tells the engine about its flow and steps (a test run's and a trial's alike). */
export const runOnTarget = (flow: Extract<FlowState, { status: 'created' }>, resolved: ResolvedTarget) => ({
  flowId: flow.flowId,
  versionId: resolved.versionId,
  versionNumber: resolved.versionNumber,
  organizationId: flow.organizationId,
  projectId: flow.projectId,
  steps: resolved.steps,
});

/** The steps of a version a run of the target asks for: a draft snapshot's own, else the version's (immutable, cached). */
export const stepsOfTarget = (engine: { flows: { versionSteps(versionId: string): Promise<StoredStep[]> } }, resolved: ResolvedTarget) => async (versionId: string) =>
  versionId === resolved.versionId && resolved.target.kind === 'draft' ? resolved.steps : engine.flows.versionSteps(versionId);
