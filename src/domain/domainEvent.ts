import type { z } from 'zod';
import { ApiKeyCreated, ApiKeyRevoked } from './apiKeys/apiKeyEvents.ts';
import {
  FlowBlockAdded,
  FlowBlockLoopSet,
  FlowBlockOutputSchemaSet,
  FlowBlockRemoved,
  FlowBlockUpdated,
  FlowCreated,
  FlowDraftReplaced,
  FlowProductionVersionSet,
  FlowPromotionForced,
  FlowPromotionGateSet,
  FlowBacktestGateSet,
  FlowVersionPublished,
} from './flows/flowEvents.ts';
import { CreditsGranted, MemberAdded, MemberRoleChanged, OrganizationCreated, ProviderKeySet, SecretDeleted, SecretSet, WebhookSecretIssued } from './organizations/organizationEvents.ts';
import {
  CreditsConsumed,
  ExecutionCompleted,
  ExecutionFailed,
  ExecutionPausedForToolCalls,
  ExecutionRequested,
  ExecutionResumed,
  ExecutionStepCompleted,
  ExecutionStepFailed,
  ExecutionStepSkipped,
  ExecutionRerunStarted,
  RunDataErased,
  ExecutionStepStarted,
  JobClaimed,
} from './execution/executionEvents.ts';
import { IdempotencyKeyClaimed, IdempotencyKeyReleased, IdempotentResponseRecorded } from './idempotency/idempotencyKeyEvents.ts';
import { ProjectCreated } from './projects/projectEvents.ts';
import { HttpRequestAttempted, ServerToolCalled } from './blocks/http/httpEvents.ts';
import { ApprovalDecided, ApprovalRequested } from './blocks/approval/approvalEvents.ts';
import { SubflowStarted } from './blocks/flow/subflowEvents.ts';
import { LoginCodeIssued, LoginCodeRedeemed } from './signIn/loginCodeEvents.ts';
import { SignInRequestApproved, SignInRequestCompleted } from './signIn/signInApprovalEvents.ts';
import { ConsoleLinkSessionsEnded, OperatorGranted, OperatorRevoked } from './operators/operatorEvents.ts';
import { OAuthClientRevoked, OAuthClientSignedIn, OAuthSignInEnded } from './oauth/oauthClientEvents.ts';
import { OAuthSigningKeyRotated } from './oauth/signingKeyEvents.ts';
import { ConsoleLinkIssued, ConsoleLinkRedeemed } from './operators/consoleLinkEvents.ts';
import { SlugReserved } from './slugs/slugReservation.ts';
import { TestCaseCreated, TestCaseDeleted, TestCaseUpdated } from './testing/testCaseEvents.ts';
import { RetentionPeriodSet } from './retention/retentionEvents.ts';
import { ScheduleAdded, ScheduleFired, ScheduleFiringsSkipped, SchedulePaused, ScheduleRemoved, ScheduleResumed } from './schedules/scheduleEvents.ts';
import { TestRunFinished, TestRunStarted } from './testing/testRunEvents.ts';
import { TestSuiteRunFinished } from './testing/testSuiteEvents.ts';
import { BacktestFinished, BacktestRunCompared, BacktestRunSkipped, BacktestStarted, upcastComparedJudge } from './backtests/backtestEvents.ts';
import { DeliveryAttemptFinished, DeliveryAttemptStarted, DeliveryCreated, DeliveryEnded, DeliveryRedeliveryRequested } from './webhooks/deliveryEvents.ts';
import { resultObject } from './execution/outputShape.ts';
import type { EventDefinition, EventOf } from './events/eventDefinition.ts';

/** Every event type at its current schema version. */
export const eventDefinitions = [
  SlugReserved,
  OrganizationCreated,
  MemberAdded,
  MemberRoleChanged,
  ProjectCreated,
  ApiKeyCreated,
  ApiKeyRevoked,
  FlowCreated,
  FlowDraftReplaced,
  FlowBlockAdded,
  FlowBlockUpdated,
  FlowBlockOutputSchemaSet,
  FlowBlockRemoved,
  FlowBlockLoopSet,
  FlowVersionPublished,
  FlowProductionVersionSet,
  FlowPromotionGateSet,
  FlowBacktestGateSet,
  FlowPromotionForced,
  CreditsGranted,
  ProviderKeySet,
  WebhookSecretIssued,
  SecretSet,
  SecretDeleted,
  ExecutionRequested,
  JobClaimed,
  ExecutionStepStarted,
  ExecutionStepCompleted,
  ExecutionStepFailed,
  ExecutionStepSkipped,
  CreditsConsumed,
  ExecutionFailed,
  ExecutionPausedForToolCalls,
  ExecutionResumed,
  ExecutionCompleted,
  ExecutionRerunStarted,
  RunDataErased,
  HttpRequestAttempted,
  ServerToolCalled,
  ApprovalRequested,
  ApprovalDecided,
  SubflowStarted,
  DeliveryCreated,
  DeliveryAttemptStarted,
  DeliveryAttemptFinished,
  DeliveryEnded,
  DeliveryRedeliveryRequested,
  TestCaseCreated,
  TestCaseUpdated,
  TestCaseDeleted,
  RetentionPeriodSet,
  ScheduleAdded,
  SchedulePaused,
  ScheduleResumed,
  ScheduleRemoved,
  ScheduleFired,
  ScheduleFiringsSkipped,
  TestRunStarted,
  TestRunFinished,
  TestSuiteRunFinished,
  BacktestStarted,
  BacktestRunCompared,
  BacktestRunSkipped,
  BacktestFinished,
  LoginCodeIssued,
  LoginCodeRedeemed,
  SignInRequestApproved,
  SignInRequestCompleted,
  OperatorGranted,
  OperatorRevoked,
  ConsoleLinkSessionsEnded,
  OAuthClientRevoked,
  OAuthClientSignedIn,
  OAuthSignInEnded,
  OAuthSigningKeyRotated,
  ConsoleLinkIssued,
  ConsoleLinkRedeemed,
  IdempotencyKeyClaimed,
  IdempotentResponseRecorded,
  IdempotencyKeyReleased,
] as const;

export type DomainEvent = EventOf<(typeof eventDefinitions)[number]>;
export type DomainEventType = DomainEvent['type'];

/** Upcasters lift stored data of an older schema version to the next one, keyed `Type@version`. */
const upcasters: Record<string, (data: unknown) => unknown> = {
  // v2 names the server tool call an attempt answers: every v1 attempt was an http block's own request.
  'HttpRequestAttempted@1': (data) => ({ ...(data as object), toolCallId: null, toolName: null }),
  // v2 added the /jobs webhook subscription: earlier runs had none.
  'ExecutionRequested@1': (data) => ({ ...(data as object), callbackUrl: null, callbackEvents: [] }),
  // v3 added test runs: earlier runs were none.
  'ExecutionRequested@2': (data) => ({ ...(data as object), testRunId: null }),
  // v4 added reruns: earlier runs rerun nothing.
  'ExecutionRequested@3': (data) => ({ ...(data as object), rerunOf: null }),
  // v5 added backtests and the declared tools: earlier runs belong to no backtest, and their tools were not kept.
  'ExecutionRequested@4': (data) => ({ ...(data as object), backtestId: null, tools: null }),
  // v6 added schedules: earlier runs were started by no schedule.
  'ExecutionRequested@5': (data) => ({ ...(data as object), schedule: null }),
  // v7 may subscribe to flow.waiting: a v6 request reads the same.
  'ExecutionRequested@6': (data) => data,
  // v8 added child runs: earlier runs were started by no flow block.
  'ExecutionRequested@7': (data) => ({ ...(data as object), parent: null }),
  // v2 may deliver flow.waiting: a v1 delivery reads the same.
  'DeliveryCreated@1': (data) => data,
  // v2 records the tool results: earlier resumes did not keep them.
  'ExecutionResumed@1': (data) => ({ ...(data as object), toolResults: null }),
  // v2 added the validation errors of repaired replies: earlier steps had none recorded.
  'ExecutionStepCompleted@1': (data) => ({ ...(data as object), validationErrors: [] }),
  // v3 may tell the block's start (`started`): a v2 completion reads the same, its start an event of its own.
  'ExecutionStepCompleted@2': (data) => data,
  // v2: `result` is always an object; v1 kept the last output as it was.
  'ExecutionCompleted@1': (data) => ({ ...(data as object), result: resultObject((data as { result?: unknown }).result) }),
  // v2 only added the reason `cancelled`: a v1 failure reads the same. The bump keeps older code from
  // reading a cancellation it does not know.
  'ExecutionFailed@1': (data) => data,
  // v3 added the sealed detail: an earlier failure's message is kept as it was written, with none.
  'ExecutionFailed@2': (data) => ({ ...(data as object), detail: null }),
  // v2 added the sealed detail, as ExecutionFailed v3 did.
  // v2 records how an erasure by content matched the run: earlier erasures say nothing of it.
  'RunDataErased@1': (data) => ({ ...(data as object), match: null }),
  'ExecutionStepFailed@1': (data) => ({ ...(data as object), detail: null }),
  // v2 added switch branches: every earlier skip was a run_if's.
  'ExecutionStepSkipped@1': (data) => ({ ...(data as object), branch: null }),
  // v2 added the backtest rule of the gate: earlier promotions were forced past the test cases only.
  'FlowPromotionForced@1': (data) => ({ ...(data as object), backtest: null }),
  // v2 added the run a test case was made from: earlier cases were written by hand.
  'TestCaseCreated@1': (data) => ({ ...(data as object), fromExecutionId: null }),
  // v2 added why a test run failed to run: earlier test runs all ran.
  'TestRunFinished@1': (data) => ({ ...(data as object), error: null }),
  // v2 names the provider: a v1 key was the default (OpenAI-compatible) provider's, the only one then.
  'ProviderKeySet@1': (data) => ({ ...(data as object), provider: 'openai' }),
  // v2 records the signing secrets' versions: earlier attempts did not say.
  'DeliveryAttemptFinished@1': (data) => ({ ...(data as object), secretVersions: [] }),
  // v3 names the run, so its excerpt is sealed under the run's key: a v2 attempt's excerpt was stored as it was.
  // v2 keeps the judge's verdict apart from its sealed words.
  'BacktestRunCompared@1': (data) => ({ ...(data as object), ...upcastComparedJudge(data as { judge?: null }) }),
  'DeliveryAttemptFinished@2': (data) => ({ ...(data as object), executionId: null }),
};

const byType = new Map<string, EventDefinition<string, z.ZodType>>(eventDefinitions.map((d) => [d.type, d]));

/** Validates stored data, upcasting older versions first. Throws on unknown types or bad data. */
export function decodeEvent(type: string, schemaVersion: number, data: unknown): DomainEvent {
  const definition = byType.get(type);
  if (!definition) throw new Error(`Unknown event type ${type}`);
  // Written by newer code: parsing it with this code's older schema would silently drop its meaning.
  if (schemaVersion > definition.version) throw new Error(`${type} version ${schemaVersion} is newer than this code knows (version ${definition.version}): upgrade Seqflow`);
  let current = data;
  for (let version = schemaVersion; version < definition.version; version++) {
    const upcast = upcasters[`${type}@${version}`];
    if (!upcast) throw new Error(`No upcaster for ${type} from version ${version}`);
    current = upcast(current);
  }
  return { type, data: definition.schema.parse(current) } as DomainEvent;
}

/** Validates an event about to be appended against its current schema. */
export function encodeEvent(event: DomainEvent): { type: string; schemaVersion: number; data: unknown } {
  const definition = byType.get(event.type);
  if (!definition) throw new Error(`Unknown event type ${event.type}`);
  return { type: event.type, schemaVersion: definition.version, data: definition.schema.parse(event.data) };
}
