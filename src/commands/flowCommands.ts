import type { BacktestGateStatus } from '../domain/flows/backtestGate.ts';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../domain/errors/apiError.ts';
import { type GateStatus, flow, type FlowState } from '../domain/flows/flow.ts';
import { type FlowFile, assignBlockIds, countBlocks, flowFileSchema, toFileSteps } from '../domain/flows/flowDefinition.ts';
import { flowStream } from '../domain/flows/flowEvents.ts';
import { type PublishContext, validateFlowForPublish } from '../domain/flows/flowValidation.ts';
import type { ProviderName } from '../domain/models/modelRoute.ts';
import { organization } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { describeIssues } from '../domain/validation/issuePath.ts';
import { loadStream } from '../eventstore/streams.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand, withCorrelation } from './commandHandler.ts';
import { findProject } from './projectCommands.ts';
import { ownerOfSlug, requireSlugOwner } from './slugLookup.ts';
import { reserveSlug } from './slugReservationCommands.ts';
import { subflowProblems } from './subflowChecks.ts';

export function parseFlowFile(input: unknown): FlowFile {
  const parsed = flowFileSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new ApiError('FLOW_FILE_INVALID', `Invalid flow file:\n${problems.join('\n')}`, { problems });
  }
  return parsed.data;
}

export interface ImportFlowInput {
  organizationSlug: string;
  projectSlug: string;
  file: unknown;
  publish?: boolean;
  note?: string | null;
  /** Publishes (if not asked already) and makes that version production. */
  production?: boolean;
}

/**
 * Imports a flow file: creates the flow, or replaces the draft of the flow with that slug. Block
 * ids stay stable for blocks whose names are unchanged.
 */
export async function importFlow(deps: CommandDependencies, input: ImportFlowInput, callerMetadata: CommandMetadata) {
  const metadata = withCorrelation(callerMetadata);
  const file = parseFlowFile(input.file);
  const { organizationId, projectId } = await findProject(deps, input.organizationSlug, input.projectSlug);

  const existing = await ownerOfSlug(deps.eventStore, 'flow', projectId, file.slug);
  const existingState = existing ? (await loadStream(deps.eventStore, flowStream(existing), flow)).state : undefined;
  if (input.publish || input.production) {
    // Refused before anything is written: an import that cannot be published leaves the draft as it was.
    const steps = assignBlockIds(file.steps, [], () => '');
    const subflows = await subflowProblems(deps, { organizationId, projectId, flowId: existing ?? '', slug: file.slug }, steps);
    const problems = validateFlowForPublish(steps, { ...(await publishContext(deps, organizationId)), subflowProblems: subflows });
    if (problems.length > 0) throw new ApiError('FLOW_INVALID', `The flow cannot be published (the draft is unchanged):\n${problems.join('\n')}`, { problems });
  }

  let flowId: string;
  let result;
  if (existing && existingState?.status === 'created') {
    flowId = existing;
    result = await handleCommand(deps, flowStream(flowId), flow, { type: 'ReplaceDraft', data: { name: file.name, steps: assignBlockIds(file.steps, existingState.draft, randomUUID) } }, metadata);
  } else {
    flowId = await reserveSlug(deps, 'flow', projectId, file.slug, randomUUID(), flowStream, metadata);
    const steps = assignBlockIds(file.steps, [], randomUUID);
    result = await handleCommand(deps, flowStream(flowId), flow, { type: 'CreateFlow', data: { flowId, projectId, organizationId, slug: file.slug, name: file.name, steps } }, metadata);
  }

  let versionId: string | null = null;
  let position = result.position;
  if (input.publish || input.production) {
    const published = await publishVersion(deps, { flowId, note: input.note ?? null }, metadata);
    versionId = published.versionId;
    position = published.position;
    if (input.production) position = (await setProductionVersion(deps, { flowId, versionId }, metadata)).position;
  }
  return { flowId, slug: file.slug, versionId, position };
}

/**
 * What a publish checks against the organization: the model providers it may route to (the
 * service's accounts and the organization's own keys; unset: not checked) and its secrets' names.
 */
export async function publishContext(deps: CommandDependencies, organizationId: string): Promise<PublishContext> {
  const { state } = await loadStream(deps.eventStore, organizationStream(organizationId), organization);
  if (state.status !== 'created') return {};
  const secrets = [...state.secrets.keys()];
  if (!deps.modelProviders) return { secrets };
  return { providers: [...new Set([...deps.modelProviders, ...(Object.keys(state.providerKeys) as ProviderName[])])], secrets };
}

export async function publishVersion(deps: CommandDependencies, input: { flowId: string; note: string | null }, metadata: CommandMetadata) {
  const versionId = randomUUID();
  const { state: current } = await loadStream(deps.eventStore, flowStream(input.flowId), flow);
  const context =
    current.status === 'created' ? { ...(await publishContext(deps, current.organizationId)), subflowProblems: await subflowProblems(deps, { organizationId: current.organizationId, projectId: current.projectId, flowId: current.flowId, slug: current.slug }, current.draft) } : {};
  const result = await handleCommand(deps, flowStream(input.flowId), flow, { type: 'PublishVersion', data: { versionId, note: input.note, context } }, metadata);
  const version = result.events.find((e) => e.type === 'FlowVersionPublished');
  return { versionId, number: version?.type === 'FlowVersionPublished' ? version.data.number : null, position: result.position };
}

/** Points production at a version; with the flow's promotion gate on, `gate` (the test results) must say passed, or `force` be given. */
export async function setProductionVersion(deps: CommandDependencies, input: { flowId: string; versionId: string; gate?: GateStatus; backtest?: BacktestGateStatus; force?: { reason: string | null } }, metadata: CommandMetadata) {
  const { flowId: _flowId, ...data } = input;
  await refuseSubflowProblems(deps, input.flowId, input.versionId);
  const result = await handleCommand(deps, flowStream(input.flowId), flow, { type: 'SetProductionVersion', data }, metadata);
  const number = result.state.status === 'created' ? result.state.versions.find((v) => v.versionId === input.versionId)?.number : undefined;
  return { flowId: input.flowId, versionId: input.versionId, number: number ?? null, position: result.position };
}

/**
 * A version made production is checked again against the flows its flow blocks run as they are now
 * (it was checked against them as they were when it was published): above all, it must not close a
 * chain that leads back to its flow.
 */
async function refuseSubflowProblems(deps: CommandDependencies, flowId: string, versionId: string) {
  const { state } = await loadStream(deps.eventStore, flowStream(flowId), flow);
  const version = state.status === 'created' ? state.versions.find((v) => v.versionId === versionId) : undefined;
  if (state.status !== 'created' || !version) return; // the decider refuses it with its own words
  const problems = await subflowProblems(deps, { organizationId: state.organizationId, projectId: state.projectId, flowId, slug: state.slug }, version.steps);
  if (problems.length > 0) throw new ApiError('FLOW_INVALID', `Version ${version.number} cannot become production:\n${problems.join('\n')}`, { problems });
}

export async function findFlow(deps: CommandDependencies, organizationSlug: string, projectSlug: string, flowSlug: string) {
  const { projectId } = await findProject(deps, organizationSlug, projectSlug);
  const flowId = await requireSlugOwner(deps.eventStore, 'flow', projectId, flowSlug, flowStream);
  const { state } = await loadStream(deps.eventStore, flowStream(flowId), flow);
  return state as Extract<FlowState, { status: 'created' }>;
}

/** The flow file of the draft, or of version `version` when given. */
export async function exportFlow(
  deps: CommandDependencies,
  input: { organizationSlug: string; projectSlug: string; flowSlug: string; version?: number },
): Promise<FlowFile> {
  const state = await findFlow(deps, input.organizationSlug, input.projectSlug, input.flowSlug);
  if (input.version === undefined) return { slug: state.slug, name: state.name, steps: toFileSteps(state.draft) };
  const version = state.versions.find((v) => v.number === input.version);
  if (!version) throw new ApiError('VERSION_NOT_FOUND', `Flow '${state.slug}' has no version ${input.version}`);
  return { slug: state.slug, name: version.name, steps: toFileSteps(version.steps) };
}

/** The flow's published versions, oldest first, and which one is production. */
export async function listVersions(deps: CommandDependencies, input: { organizationSlug: string; projectSlug: string; flowSlug: string }) {
  const state = await findFlow(deps, input.organizationSlug, input.projectSlug, input.flowSlug);
  return {
    flowId: state.flowId,
    productionVersionId: state.productionVersionId,
    versions: state.versions.map((v) => ({ versionId: v.versionId, number: v.number, note: v.note, blockCount: countBlocks(v.steps), production: v.versionId === state.productionVersionId })),
  };
}
