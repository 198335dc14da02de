import { blockKinds } from '../domain/blocks/blockKinds.ts';
import { randomUUID } from 'node:crypto';
import { type CommandDependencies, type CommandMetadata, handleCommand, withCorrelation } from '../commands/commandHandler.ts';
import type { Kysely } from 'kysely';
import { findFlow, publishContext, publishVersion, setProductionVersion } from '../commands/flowCommands.ts';
import { validateFlowForPublish } from '../domain/flows/flowValidation.ts';
import { reserveSlug } from '../commands/slugReservationCommands.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type BlockChanges, type BlockContent, type Direction, locateBlock } from '../domain/flows/draftEdits.ts';
import { type FlowCommand, type FlowState, flow } from '../domain/flows/flow.ts';
import { flowStream } from '../domain/flows/flowEvents.ts';
import { project } from '../domain/projects/project.ts';
import { projectStream } from '../domain/projects/projectEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { gateStatusOf } from '../queries/testRunQueries.ts';
import { backtestGateStatusOf } from '../queries/backtestQueries.ts';
import { type AuthoringScope, inScope } from './authoringScope.ts';

/**
 * Block-by-block authoring of flows, as commands on the flow's stream: what the CLI, the assistant
 * endpoint and the console call. `scope` holds the caller's organizations: a flow of another
 * organization is refused exactly as a flow that does not exist. Every edit is an event carrying
 * the principal in its metadata.
 */
export type { AuthoringScope };

type CreatedFlow = Extract<FlowState, { status: 'created' }>;

/** The flow, or FLOW_NOT_FOUND for a missing flow and for another organization's alike. */
export async function requireFlow(deps: CommandDependencies, scope: AuthoringScope, flowId: string): Promise<CreatedFlow> {
  return (await loadFlow(deps, scope, flowId)).state;
}

/** The flow's stream as loaded (its state, events and their records), or FLOW_NOT_FOUND as `requireFlow`. */
export async function loadFlow(deps: CommandDependencies, scope: AuthoringScope, flowId: string) {
  const loaded = await loadStream(deps.eventStore, flowStream(flowId), flow);
  const { state } = loaded;
  if (state.status !== 'created' || !inScope(scope, state.organizationId)) {
    throw new ApiError('FLOW_NOT_FOUND', `No flow ${flowId}`);
  }
  return { ...loaded, state };
}

/** A new flow with an empty draft, in a project (by id). */
export async function createFlow(deps: CommandDependencies, scope: AuthoringScope, input: { projectId: string; name: string; slug: string }, callerMetadata: CommandMetadata) {
  const metadata = withCorrelation(callerMetadata);
  const { state } = await loadStream(deps.eventStore, projectStream(input.projectId), project);
  if (state.status !== 'created' || !inScope(scope, state.organizationId)) {
    throw new ApiError('PROJECT_NOT_FOUND', `No project ${input.projectId}`);
  }
  const flowId = await reserveSlug(deps, 'flow', input.projectId, input.slug, randomUUID(), flowStream, metadata);
  const result = await handleCommand(deps, flowStream(flowId), flow, { type: 'CreateFlow', data: { flowId, projectId: input.projectId, organizationId: state.organizationId, slug: input.slug, name: input.name, steps: [] } }, metadata);
  return { flowId, slug: input.slug, position: result.position };
}

async function edit(deps: CommandDependencies, scope: AuthoringScope, flowId: string, command: FlowCommand, metadata: CommandMetadata) {
  await requireFlow(deps, scope, flowId);
  const result = await handleCommand(deps, flowStream(flowId), flow, command, metadata);
  return { flowId, position: result.position };
}

/** Adds a block: the first one needs no target; then `right` (a new step after the target's) or `bottom` (a parallel sibling). */
export async function addBlock(
  deps: CommandDependencies,
  scope: AuthoringScope,
  input: BlockContent & { flowId: string; targetId?: string; direction?: Direction },
  metadata: CommandMetadata,
) {
  const { flowId, targetId, direction, ...content } = input;
  const blockId = randomUUID();
  const done = await edit(deps, scope, flowId, { type: 'AddBlock', data: { block: { ...content, id: blockId }, targetId, direction } }, metadata);
  return { ...done, blockId };
}

export const updateBlock = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; blockId: string; changes: BlockChanges }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'UpdateBlock', data: { blockId: input.blockId, changes: input.changes } }, metadata).then((r) => ({ ...r, blockId: input.blockId }));

export const setBlockOutputSchema = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; blockId: string; schema: Record<string, unknown> | null }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'SetBlockOutputSchema', data: { blockId: input.blockId, schema: input.schema } }, metadata).then((r) => ({ ...r, blockId: input.blockId }));

export const removeBlock = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; blockId: string }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'RemoveBlock', data: { blockId: input.blockId } }, metadata).then((r) => ({ ...r, blockId: input.blockId }));

/**
 * Replaces a block's draft text: the prompt of an llm block, the code of a code block (a passthrough
 * block has none). What an assistant edits most, without having to know which field it is.
 */
export async function updateBlockDraft(deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; blockId: string; content: string }, metadata: CommandMetadata) {
  const state = await requireFlow(deps, scope, input.flowId);
  const { block } = locateBlock(state.draft, input.blockId);
  const text = blockKinds[block.processor_type].draftText;
  if (!text) throw new ApiError('BLOCK_INVALID', `Block '${block.name}' is a ${block.processor_type} block: it has no prompt or code to edit`);
  const changes: BlockChanges = { [text.field]: input.content };
  return updateBlock(deps, scope, { flowId: input.flowId, blockId: input.blockId, changes }, metadata).then((r) => ({ ...r, field: text.field }));
}

/** Wraps a block in a loop over `over`, or unwraps it (null). */
export const setBlockLoop = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; blockId: string; over: string | null }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'SetBlockLoop', data: { blockId: input.blockId, over: input.over } }, metadata).then((r) => ({ ...r, blockId: input.blockId }));

/** What publishing the draft now would refuse, without publishing: every problem, each naming its block (empty: publishable). */
export async function validateDraft(deps: CommandDependencies, scope: AuthoringScope, flowId: string): Promise<string[]> {
  const state = await requireFlow(deps, scope, flowId);
  return validateFlowForPublish(state.draft, await publishContext(deps, state.organizationId));
}

/** Publishes the draft as the next version (refused with every problem when it is not publishable). */
export async function publishDraft(deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; note: string | null }, metadata: CommandMetadata) {
  await requireFlow(deps, scope, input.flowId);
  return publishVersion(deps, input, metadata);
}

/**
 * Makes an existing version production (a rollback is the same move to an older one). With the
 * flow's promotion gate on, every test case must have passed on that version (TESTS_NOT_RUN,
 * TESTS_FAILING); with its backtest rule set, a finished backtest of the version must have changed
 * at most that share of answers (BACKTEST_NOT_RUN, BACKTEST_CHANGED); unless `force` is given,
 * which is recorded as its own event.
 */
export async function setProduction(
  deps: CommandDependencies & { db: Kysely<ReadModels> },
  scope: AuthoringScope,
  input: { flowId: string; versionId: string; force?: { reason: string | null } },
  metadata: CommandMetadata,
) {
  const state = await requireFlow(deps, scope, input.flowId);
  const gate = state.promotionGate ? await gateStatusOf(deps.db, input.flowId, input.versionId) : undefined;
  const backtest = state.backtestGate !== null ? await backtestGateStatusOf(deps.db, input.flowId, input.versionId) : undefined;
  return setProductionVersion(deps, { ...input, gate, backtest }, metadata);
}

/** `setProduction` by the flow's slugs and a version number (the CLI's `flow promote`). */
export async function promoteVersionNumber(
  deps: CommandDependencies & { db: Kysely<ReadModels> },
  input: { organizationSlug: string; projectSlug: string; flowSlug: string; version: number; force?: { reason: string | null } },
  metadata: CommandMetadata,
) {
  const state = await findFlow(deps, input.organizationSlug, input.projectSlug, input.flowSlug);
  const version = state.versions.find((v) => v.number === input.version);
  if (!version) throw new ApiError('VERSION_NOT_FOUND', `Flow '${state.slug}' has no version ${input.version} (it has ${state.versions.map((v) => v.number).join(', ') || 'none'})`);
  const result = await setProduction(deps, {}, { flowId: state.flowId, versionId: version.versionId, force: input.force }, metadata);
  return { ...result, number: version.number };
}

/** Sets the promotion gate's backtest rule: at most `maxChangedPercent` changed answers, or (null) none. */
export const setBacktestGate = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; maxChangedPercent: number | null }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'SetBacktestGate', data: { maxChangedPercent: input.maxChangedPercent } }, metadata).then((r) => ({ ...r, backtestGate: input.maxChangedPercent }));

/** Turns the flow's promotion gate on or off. */
export const setPromotionGate = (deps: CommandDependencies, scope: AuthoringScope, input: { flowId: string; enabled: boolean }, metadata: CommandMetadata) =>
  edit(deps, scope, input.flowId, { type: 'SetPromotionGate', data: { enabled: input.enabled } }, metadata).then((r) => ({ ...r, promotionGate: input.enabled }));
