import { ApiError } from '../domain/errors/apiError.ts';
import { flowStream } from '../domain/flows/flowEvents.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import { readWholeLog } from './logPages.ts';

/**
 * Which version of a flow was in production at `at` (ISO time): who promoted it and when, whether
 * the test gate was forced for it, and when it stopped being production (null: it still is). Read
 * from the flow's stream alone.
 */
export async function productionAt(eventStore: EventStore, input: { flowId: string; at: string }) {
  const recorded = await eventStore.readStream(flowStream(input.flowId));
  if (recorded.length === 0) throw new ApiError('FLOW_NOT_FOUND', `No flow ${input.flowId}`);
  const at = Date.parse(input.at);
  if (Number.isNaN(at)) throw new ApiError('VALIDATION_FAILED', `--at: not a time (${input.at}); give ISO 8601, e.g. 2026-11-22T10:00:00Z`);
  let live: { versionId: string; number: number; promotedBy: unknown; promotedAt: string; forced: unknown } | null = null;
  let until: string | null = null;
  let forced: unknown = null;
  for (const r of recorded) {
    const event = decodeRecorded(r);
    const when = Date.parse(r.metadata.occurredAt);
    if (event.type === 'FlowPromotionForced') forced = { gate: event.data.gate, testCases: event.data.testCases, reason: event.data.reason, by: r.metadata.principal };
    if (event.type !== 'FlowProductionVersionSet') continue;
    if (when <= at) {
      live = { versionId: event.data.versionId, number: event.data.number, promotedBy: r.metadata.principal, promotedAt: r.metadata.occurredAt, forced };
      until = null;
    } else if (live && until === null) {
      until = r.metadata.occurredAt;
    }
    forced = null;
  }
  return { flowId: input.flowId, at: new Date(at).toISOString(), production: live ? { ...live, until } : null };
}

/** The changes an auditor asks about: tenancy, members, credits granted, secrets, keys, flows and test cases. */
const CHANGE_TYPES = new Set([
  'OrganizationCreated', 'MemberAdded', 'MemberRoleChanged', 'CreditsGranted', 'ProviderKeySet', 'WebhookSecretIssued', 'SecretSet', 'SecretDeleted', 'ProjectCreated', 'ApiKeyCreated', 'ApiKeyRevoked',
  'FlowCreated', 'FlowDraftReplaced', 'FlowBlockAdded', 'FlowBlockUpdated', 'FlowBlockOutputSchemaSet', 'FlowBlockRemoved', 'FlowBlockLoopSet', 'FlowVersionPublished', 'FlowProductionVersionSet', 'FlowPromotionGateSet', 'FlowBacktestGateSet', 'FlowPromotionForced',
  'TestCaseCreated', 'TestCaseUpdated', 'TestCaseDeleted',
]);

/**
 * Every change to an organization (its members, credits, secrets, keys, projects, flows and test
 * cases) since `since`, with who made it and when, in log order: one pass over the log, following
 * the streams the organization's own events create. Secrets appear as their version only.
 */
export async function changesOf(eventStore: EventStore, input: { organizationId: string; since?: string }) {
  const streams = new Set([organizationStream(input.organizationId)]);
  const changes: { position: number; at: string; streamId: string; type: string; principal: unknown; summary: Record<string, unknown> }[] = [];
  await readWholeLog(eventStore, (page) => {
    for (const r of page) {
      if (!CHANGE_TYPES.has(r.type)) continue;
      const owner = (r.data as { organizationId?: unknown }).organizationId;
      if (owner === input.organizationId) streams.add(r.streamId);
      if (!streams.has(r.streamId) && !(r.type.startsWith('TestCase') && streams.has(flowStream((r.data as { flowId: string }).flowId)))) continue;
      if (r.type === 'TestCaseCreated') streams.add(r.streamId);
      if (input.since && r.metadata.occurredAt < input.since) continue;
      changes.push({ position: r.position, at: r.metadata.occurredAt, streamId: r.streamId, type: r.type, principal: r.metadata.principal, summary: summaryOf(r) });
    }
  });
  return { organizationId: input.organizationId, since: input.since ?? null, changes };
}

/** A change's gist without its secrets or whole drafts: the ids and values an auditor reads. */
function summaryOf(r: RecordedEvent): Record<string, unknown> {
  const event = decodeRecorded(r);
  switch (event.type) {
    case 'MemberAdded':
    case 'MemberRoleChanged':
    case 'CreditsGranted':
      return { ...event.data };
    case 'WebhookSecretIssued':
      return { version: event.data.version };
    case 'SecretSet':
      return { name: event.data.name, version: event.data.version };
    case 'SecretDeleted':
      return { name: event.data.name };
    case 'ProviderKeySet':
      return { provider: event.data.provider, keyHint: event.data.keyHint, baseUrl: event.data.baseUrl };
    case 'ApiKeyCreated':
      return { keyId: event.data.keyId, projectId: event.data.projectId, environment: event.data.environment };
    case 'FlowVersionPublished':
      return { flowId: event.data.flowId, versionId: event.data.versionId, number: event.data.number, note: event.data.note };
    case 'FlowProductionVersionSet':
    case 'FlowPromotionForced':
    case 'FlowPromotionGateSet':
    case 'FlowBacktestGateSet':
    case 'ApiKeyRevoked':
    case 'TestCaseDeleted':
      return { ...event.data };
    default: {
      const data = event.data as Record<string, unknown>;
      return Object.fromEntries(['flowId', 'projectId', 'testCaseId', 'slug', 'name', 'blockId'].filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
    }
  }
}
