import { z } from 'zod';
import { processorTypes } from '../../../domain/blocks/blockKinds.ts';
import { failureReasons, webhookEvents } from '../../../domain/execution/executionEvents.ts';
import { webhookFailureReasons } from '../../../domain/webhooks/webhookPayload.ts';
import { jobStatuses, runStatuses } from '../../../domain/execution/runStatus.ts';
import { runModes } from '../../../domain/execution/executionEvents.ts';
import { memberRoles } from '../../../domain/organizations/memberRole.ts';
import { timeoutPolicies } from '../../../domain/blocks/approval/approvalConfig.ts';

/**
 * What the REST API answers, as zod schemas: the OpenAPI document is generated from them, the
 * response-conformance test checks every answer against that document, and the client package's
 * types follow them.
 */
const timestamp = z.iso.datetime({ offset: true });
const resultObject = z.record(z.string(), z.unknown()).meta({ description: "The run's result: the last block's output as an object (a non-object output is wrapped as `{output}`)" });

export const toolCallSchema = z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string().meta({ description: 'JSON text of the arguments, as the model wrote it' }) }) });

export const executeCompletedSchema = z.object({
  status: z.literal('completed'),
  result: resultObject,
  flowId: z.string(),
  blockCount: z.number().int(),
  executionId: z.string(),
});

export const executePausedSchema = z.object({
  status: z.literal('tool_calls_required'),
  executionId: z.string(),
  pausedAtStep: z.string().meta({ description: 'The block waiting for tool results: send it back as `pausedAtStep`' }),
  iterationsUsed: z.number().int(),
  toolCallMessages: z.array(z.unknown()).meta({ description: 'The conversation so far: append one `{role: "tool", tool_call_id, content}` per tool call and send it back' }),
  toolCalls: z.array(toolCallSchema),
  accumulatedOutputs: z.record(z.string(), z.unknown()),
});

/** What a run waits for outside it (an addition to the spec): a person's decision at an approval block. */
export const waitingForSchema = z
  .object({
    type: z.literal('approval'),
    stepId: z.string().meta({ description: 'The approval block: decide it with POST .../runs/{executionId}/approvals/{stepId}' }),
    approvers: z.object({ roles: z.array(z.enum(memberRoles)), members: z.array(z.string()) }).meta({ description: 'Who may decide: members holding one of the roles, or named by their subject' }),
    onTimeout: z.enum(timeoutPolicies),
    timeoutMs: z.number().int(),
    requestedAt: timestamp,
    dueAt: timestamp.meta({ description: 'When the timeout policy decides, if nobody has (the sweep decides on the database clock, within a few seconds of it)' }),
  })
  .meta({ id: 'WaitingFor' });

export const executeWaitingSchema = z
  .object({
    status: z.literal('approval_required'),
    executionId: z.string(),
    flowId: z.string(),
    blockCount: z.number().int(),
    waitingFor: waitingForSchema,
    accumulatedOutputs: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ExecuteWaiting', description: 'The run waits for an approval (202): it goes on as a job once decided; poll GET .../jobs/{executionId}' });

export const approvalDecidedSchema = z
  .object({
    executionId: z.string(),
    stepId: z.string(),
    decision: z.enum(['approved', 'rejected']),
    decidedBy: z.string().meta({ description: "The decider's subject (`api-key:<id>` for an API key)" }),
    role: z.enum(memberRoles),
    decidedAt: timestamp,
  })
  .meta({ id: 'ApprovalDecided' });

export const executeAnswerSchema = z.discriminatedUnion('status', [executeCompletedSchema, executePausedSchema]).meta({ id: 'ExecuteAnswer' });

export const jobAcceptedSchema = z.object({ executionId: z.string(), status: z.literal('started'), flowId: z.string(), blockCount: z.number().int() }).meta({ id: 'JobAccepted' });

const jobFields = {
  executionId: z.string(),
  flowId: z.string(),
  status: z.enum(jobStatuses),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  completedAt: timestamp.nullable(),
  durationMs: z.number().int().nullable(),
  failureReason: z.enum(failureReasons).nullable().optional().meta({ description: 'Only when failed' }),
  errorCode: z.string().nullable().optional().meta({ description: 'Only when failed' }),
  errorMessage: z.string().nullable().optional().meta({ description: 'Only when failed' }),
  dataErasedAt: timestamp.optional().meta({ description: "Only once the run's data was erased: its result then reads null" }),
  waitingFor: waitingForSchema.optional().meta({ description: 'Only while the run waits for an approval (status reads running meanwhile; an addition to the spec)' }),
};
export const jobSchema = z.object({ ...jobFields, result: resultObject.nullable().optional().meta({ description: 'Only when completed' }) }).meta({ id: 'Job' });
export const jobListItemSchema = z.object(jobFields).meta({ id: 'JobListItem', description: 'A job as listed: its result is left out (poll the job for it)' });

const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable().meta({ description: 'Pass back as `cursor` for the next page; null on the last' }) });
export const jobPageSchema = pageOf(jobListItemSchema).meta({ id: 'JobPage' });

export const runListItemSchema = z
  .object({
    executionId: z.string(),
    flowId: z.string(),
    versionNumber: z.number().int().nullable(),
    mode: z.enum(runModes),
    status: z.enum(runStatuses),
    failureCode: z.string().nullable(),
    createdAt: timestamp,
    endedAt: timestamp.nullable(),
    durationMs: z.number().int().nullable(),
    dataErasedAt: timestamp.nullable().meta({ description: "When the run's data was erased (DELETE .../runs/{executionId}/data, or its retention period), or null" }),
    scheduleId: z.string().nullable().meta({ description: 'The schedule whose firing started this job (`seqflow schedule`), or null' }),
  })
  .meta({ id: 'Run' });
export const runErasureSchema = z
  .object({
    executionId: z.string(),
    erasedAt: timestamp.meta({ description: 'When its data was erased: now, or by an earlier erasure, which stands' }),
    erasedNow: z.boolean().meta({ description: 'false: it was erased before this request' }),
    derived: z
      .array(
        z.object({
          executionId: z.string(),
          derivation: z.enum(['rerun', 'backtest_replay', 'test_run', 'subflow', 'parent_run']).meta({ description: 'How it is linked to the erased run: a rerun, a backtest replay, a test run of a case made from it, a child run of one of its flow blocks (subflow), or the run whose flow block started it (parent_run)' }),
          from: z.string(),
          erasedAt: timestamp.nullable(),
          erasedNow: z.boolean(),
          error: z.object({ code: z.string(), message: z.string() }).nullable(),
        }),
      )
      .meta({ description: 'The runs derived from it (reruns, backtest replays, test runs of test cases made from it, and theirs), erased with it' }),
    testCasesKept: z.array(z.object({ testCaseId: z.string(), name: z.string(), from: z.string() })).meta({ description: 'Test cases made from it: they keep their own copy of its input; delete them too if they hold the person\'s data' }),
  })
  .meta({ id: 'RunErasure' });
export const runPageSchema = pageOf(runListItemSchema).meta({ id: 'RunPage' });

export const flowSchema = z
  .object({
    flowId: z.string(),
    slug: z.string(),
    name: z.string(),
    draftBlockCount: z.number().int(),
    productionVersion: z.object({ versionId: z.string(), number: z.number().int(), blockCount: z.number().int(), publishedAt: timestamp }).nullable(),
  })
  .meta({ id: 'Flow' });

export const webhookSecretSchema = z
  .object({
    secretPreview: z.string(),
    version: z.number().int(),
    createdAt: timestamp,
    rotatedAt: timestamp.nullable(),
    graceUntil: timestamp.nullable().meta({ description: 'While the previous secret still signs `v2`' }),
  })
  .meta({ id: 'WebhookSecret' });
export const rotatedSecretSchema = webhookSecretSchema.extend({ newSecret: z.string().meta({ description: 'Shown once' }) }).meta({ id: 'RotatedWebhookSecret' });

export const deliveryPageSchema = pageOf(
  z
    .object({
      id: z.string(),
      executionId: z.string(),
      event: z.enum(webhookEvents),
      status: z.string(),
      attempts: z.number().int(),
      responseStatus: z.number().int().nullable(),
      errorExcerpt: z.string().nullable(),
      createdAt: timestamp,
      nextAttemptAt: timestamp.nullable(),
    })
    .meta({ id: 'Delivery' }),
).meta({ id: 'DeliveryPage' });

const check = z.object({ ok: z.boolean(), error: z.string().optional() });
export const healthSchema = z
  .object({
    status: z.enum(['ok', 'degraded', 'unavailable']),
    database: check,
    eventLog: check.extend({ kind: z.string() }),
    projections: z.object({ maxBehind: z.number().int(), detail: z.array(z.record(z.string(), z.unknown())) }),
    tasks: z.array(z.record(z.string(), z.unknown())),
    problems: z.array(z.object({ code: z.string(), count: z.number().int(), message: z.string() })).meta({ description: 'What this process knows is wrong with itself, counted by code (e.g. WEBHOOK_SECRETS_UNREADABLE)' }),
    watchdog: z
      .object({ checkedAt: timestamp, counts: z.record(z.string(), z.number().int()) })
      .nullable()
      .meta({ description: "The watchdog's last check in this process (null where none runs): work that should have moved and did not, counted by kind (silent_run, job_over_claims, delivery_over_claims, projection_behind, schedule_overdue)" }),
    reads: z
      .object({
        replicas: z.array(z.object({ replica: z.string(), state: z.enum(['up', 'down']), reads: z.number().int(), lastError: z.string().nullable() })),
        primaryReads: z.number().int(),
        waitedOut: z.number().int(),
      })
      .optional()
      .meta({ description: "Where this process's polls and listings were read: each read replica (DATABASE_READ_URLS; host, port and database; down after it failed, until it is tried again) and the primary; waitedOut: reads that found no read model showing the caller's writes within SEQFLOW_READ_WAIT_MS and read the primary as it was" }),
  })
  .meta({ id: 'Health' });

export const WEBHOOK_PAYLOAD_ID = 'WebhookPayload';

/** The body of a webhook delivery (signed with the organization's secret; see the README). */
export const webhookPayloadSchema = z
  .object({
    event: z.enum(webhookEvents),
    deliveryId: z.string().meta({ description: 'Stable across retries: the idempotency key of the delivery' }),
    executionId: z.string(),
    flowId: z.string(),
    organizationId: z.string(),
    durationMs: z.number().int(),
    occurredAt: timestamp,
    result: z.unknown().meta({ description: 'flow.completed: the result, or `{truncated: true, sizeBytes, fetchFrom}` over 256 KB; flow.failed and flow.waiting: null' }),
    waitingFor: waitingForSchema.optional().meta({ description: 'flow.waiting (sent only when callbackEvents names it; an addition to the spec): what the run waits for' }),
    errorMessage: z.string().optional().meta({ description: 'flow.failed: why; cut (naming its full length) when it would take the body over 256 KB' }),
    failureReason: z.enum(webhookFailureReasons).optional().meta({ description: 'flow.failed: a cancelled run is `error`, its message naming the cancellation' }),
    truncated: z.boolean(),
  })
  .meta({ id: WEBHOOK_PAYLOAD_ID });

const blockRef = { executionId: z.string(), stepIndex: z.number().int(), blockId: z.string(), blockName: z.string(), iteration: z.number().int().nullable() };
const usage = z.object({ promptTokens: z.number().int(), completionTokens: z.number().int(), totalTokens: z.number().int() });
const stepEvent = <Name extends string, Data extends z.ZodType>(event: Name, data: Data) => z.object({ event: z.literal(event), data });

/**
 * The events of a `/step` stream, by their SSE `event` name, with the JSON of their `data` line.
 * OpenAPI 3.1 cannot type a stream's events, so this schema is a component of its own (`StepEvent`).
 */
export const stepEventSchema = z
  .discriminatedUnion('event', [
    stepEvent('started', z.object({ executionId: z.string(), flowId: z.string(), versionId: z.string(), versionNumber: z.number().int(), blockCount: z.number().int() })),
    stepEvent('step_started', z.object({ ...blockRef, processorType: z.enum(processorTypes) })),
    stepEvent('step_completed', z.object({ ...blockRef, output: z.unknown(), model: z.string().nullable(), usage: usage.nullable(), durationMs: z.number().int() })),
    stepEvent(
      'step_paused_for_tool_calls',
      executePausedSchema.extend({ toolCallMessages: z.array(z.unknown()).nullable().meta({ description: 'null when the stream is read in another process than the run (the log keeps only their digest)' }) }),
    ),
    stepEvent(
      'step_skipped',
      z
        .object({ ...blockRef, condition: z.string(), values: z.record(z.string(), z.unknown()) })
        .meta({ description: "A block whose `run_if` was not true: it did not run and later blocks read its output as null. `values`: each path the condition read, with its value then. Sent only with `?events=extended`; without it the stream is exactly the spec's." }),
    ),
    stepEvent(
      'step_waiting_for_approval',
      z
        .object({ status: z.literal('approval_required'), executionId: z.string(), stepId: z.string(), approvers: waitingForSchema.shape.approvers, onTimeout: z.enum(timeoutPolicies), timeoutMs: z.number().int() })
        .meta({ description: 'The run waits for a person at an approval block (an addition to the spec): the stream ends; the run goes on as a job once decided (poll GET .../jobs/{executionId}).' }),
    ),
    stepEvent('resumed', z.object({ executionId: z.string(), pausedAtStep: z.string(), iterationsUsed: z.number().int() })),
    stepEvent(
      'token',
      z
        .object({ executionId: z.string(), stepId: z.string().meta({ description: "The block's id (its step events' `blockId`)" }), blockName: z.string(), iteration: z.number().int().nullable(), delta: z.string() })
        .meta({ description: "A piece of an llm block's reply while its provider streams it, after the block's `step_started` and before its `step_completed` (whose `output` is the whole reply). Sent only to a reader in the process that runs the run; it has no `id` and is not in the log, so a reconnect does not repeat it. Concatenated, a step's deltas are its reply's text (a piece may end inside a character; the next one completes it)." }),
    ),
    stepEvent('completed', executeCompletedSchema),
    stepEvent('failed', z.object({ executionId: z.string(), code: z.string(), message: z.string(), failureReason: z.enum(failureReasons), step_name: z.string().nullable() })),
  ])
  .meta({ id: 'StepEvent' });

/** An assistant registered at the embedded authorization server, as an organization's admin sees it: only the organization's own members among those it acts for. */
export const organizationAssistantsSchema = z
  .object({
    items: z.array(
      z.object({
        clientId: z.string(),
        clientName: z.string().nullable().meta({ description: 'Its own name for itself (a metadata-document client names itself in its document)' }),
        redirectUris: z.array(z.string()),
        registeredAt: timestamp,
        subjects: z.array(z.string()).meta({ description: "The organization's members it acts for" }),
      }),
    ),
  })
  .meta({ id: 'OrganizationAssistants' });
export const assistantEndedSchema = z.object({ clientId: z.string(), revoked: z.literal(true), recorded: z.boolean().meta({ description: 'False when it had been ended already' }) }).meta({ id: 'AssistantEnded' });
