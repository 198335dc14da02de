import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { attachmentSchema } from './attachment.ts';

/** Why a run failed. `cancelled` (ExecutionFailed v2): an operator cancelled a run that had not ended. */
export const failureReasons = ['error', 'credits_exhausted', 'byok_rejected', 'cancelled'] as const;
export type FailureReason = (typeof failureReasons)[number];

const usageSchema = z.object({ promptTokens: z.number().int(), completionTokens: z.number().int(), totalTokens: z.number().int() });
export type TokenUsage = z.infer<typeof usageSchema>;

export const webhookEvents = ['flow.completed', 'flow.failed'] as const;
export type WebhookEventName = (typeof webhookEvents)[number];

/**
 * A run was asked for: which version it runs and with what input. Version 2 added the webhook
 * subscription of /jobs runs (version 1 events are upcast with none); version 3 added test runs
 * (mode `test`, and the test run it belongs to; version 2 events are upcast with none). A test run
 * of a flow's draft has versionNumber 0 and a versionId naming its snapshot (`draft:<id of the test or suite run>`).
 * Version 5 added backtest runs (mode `backtest`, and the backtest they belong to) and the tools the
 * caller declared, so a backtest can declare them again (version 4 events are upcast with none of either).
 */
const toolSchema = z.object({ type: z.literal('function'), function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) });
const toolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]);
export const runModes = ['sync', 'async', 'step', 'test', 'backtest'] as const;
export type RunMode = (typeof runModes)[number];

export const ExecutionRequested = defineEvent(
  'ExecutionRequested',
  6,
  z.object({
    executionId: z.string(),
    flowId: z.string(),
    versionId: z.string(),
    versionNumber: z.number().int(),
    organizationId: z.string(),
    projectId: z.string(),
    mode: z.enum(runModes),
    message: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()),
    attachments: z.array(attachmentSchema),
    apiKeyId: z.string().nullable(),
    blockCount: z.number().int(),
    callbackUrl: z.string().nullable(),
    callbackEvents: z.array(z.enum(webhookEvents)),
    testRunId: z.string().nullable(),
    /** v4: the run this one reruns (same input, same version), or null. */
    rerunOf: z.string().nullable(),
    /** v5: the backtest this run belongs to (mode `backtest`), or null. */
    backtestId: z.string().nullable(),
    /** v5: the tools the caller declared with the run, or null (none, or recorded before v5). */
    tools: z.object({ tools: z.array(toolSchema), toolChoice: toolChoiceSchema }).nullable(),
    /** v6: the schedule firing that started this job, or null. */
    schedule: z.object({ scheduleId: z.string(), scheduledFor: z.string() }).nullable(),
  }),
);

/** A job runner took an accepted /jobs run (or took it over after the previous claim's lease ran out). */
export const JobClaimed = defineEvent('JobClaimed', 1, z.object({ executionId: z.string(), worker: z.string(), claim: z.number().int().min(1) }));

const blockRef = {
  executionId: z.string(),
  stepIndex: z.number().int(),
  blockId: z.string(),
  blockName: z.string(),
  /** Index of the loop item, for blocks of a loop step. */
  iteration: z.number().int().nullable(),
};

export const ExecutionStepStarted = defineEvent(
  'ExecutionStepStarted',
  1,
  z.object({
    ...blockRef,
    processorType: z.enum(['llm', 'passthrough', 'code']),
    /** What the block received: the rendered prompt for llm blocks, the input object otherwise. */
    input: z.unknown(),
    /** Placeholders that rendered empty because their value was absent. */
    missingPlaceholders: z.array(z.string()),
  }),
);

/**
 * A block (or every block of a parallel step) did not run: its `run_if` condition was not true. What
 * the condition said and the value of each path it read are kept, so a trace shows why. It costs
 * nothing; later blocks read its output as null.
 */
export const ExecutionStepSkipped = defineEvent(
  'ExecutionStepSkipped',
  1,
  z.object({
    ...blockRef,
    condition: z.string(),
    /** Each path the condition read, as written, with its value then (null: absent). */
    values: z.record(z.string(), z.unknown()),
  }),
);

/**
 * One call to a model within a step: what it replied (the first 2,000 characters, and the whole
 * reply's length), its tokens, and why the reply was refused (null when it was taken).
 */
export const modelAttemptSchema = z.object({ reply: z.string(), replyLength: z.number().int(), usage: usageSchema.nullable(), rejection: z.string().nullable() });
export type ModelAttempt = z.infer<typeof modelAttemptSchema>;

/**
 * When one request to the model went out within a step (ms after the step began) and how long it
 * took, and whether it was answered or failed (a provider error, a timeout): a step's waterfall.
 */
/** A model a block gave up on before another answered: it could not be reached (see modelFallbacks.ts). */
export const fallenBackSchema = z.object({ model: z.string(), code: z.string(), message: z.string() });
export type FallenBack = z.infer<typeof fallenBackSchema>;

export const modelCallSchema = z.object({ startMs: z.number().int().min(0), durationMs: z.number().int().min(0), outcome: z.enum(['answered', 'failed']) });
export type ModelCall = z.infer<typeof modelCallSchema>;

/**
 * A block's start, told by its completion (version 3): the start was still waiting to be appended when
 * the block completed, so both went in one event rather than two (src/domain/execution/joinedStepStarts.ts).
 * When it was noted, and what the start event would have said but its input (`input` beside it, sealed).
 */
export const joinedStartSchema = z.object({ at: z.iso.datetime(), processorType: z.enum(['llm', 'passthrough', 'code']), missingPlaceholders: z.array(z.string()) });

/**
 * A block produced its output. Version 2 added `validationErrors`: why earlier replies of an llm block
 * were refused by its output schema before a repair succeeded (version 1 events are upcast with none).
 * Version 3 may tell the block's start too (`started`, `input`): older code must not read it as a
 * completion whose block never started.
 */
export const ExecutionStepCompleted = defineEvent(
  'ExecutionStepCompleted',
  3,
  z.object({
    ...blockRef,
    /** Present when the block's start is told here, not by an ExecutionStepStarted of its own. */
    started: joinedStartSchema.optional(),
    /** What the block received, with `started` (as ExecutionStepStarted.input). */
    input: z.unknown().optional(),
    output: z.unknown(),
    model: z.string().nullable(),
    usage: usageSchema.nullable(),
    durationMs: z.number().int(),
    attempts: z.number().int(),
    validationErrors: z.array(z.string()),
    /** The model's replies refused before the one taken (their tokens are in `usage`); absent when none was. */
    rejectedReplies: z.array(modelAttemptSchema).optional(),
    /** Each request to the model, in order; absent for other blocks and in events recorded before it was kept. */
    modelCalls: z.array(modelCallSchema).optional(),
    /** What the step's tokens cost in US dollars at the catalog's prices when it ran (null: no price known); absent for other blocks and before costs were kept. */
    costUsd: z.number().nonnegative().nullable().optional(),
    /** The models tried before `model` answered, each with why it was given up on; absent when the block's own model answered. */
    fallbacks: z.array(fallenBackSchema).optional(),
  }),
);

/**
 * A block that started did not finish: why (the same code and message the run fails with), and,
 * for llm blocks, every model call it made with its reply, tokens and why it was refused. Its
 * tokens are charged (CreditsConsumed) in the same append.
 */
export const ExecutionStepFailed = defineEvent(
  'ExecutionStepFailed',
  1,
  z.object({
    ...blockRef,
    code: z.string(),
    message: z.string(),
    durationMs: z.number().int(),
    model: z.string().nullable(),
    usage: usageSchema.nullable(),
    attempts: z.array(modelAttemptSchema),
    /** Each request to the model, in order (absent in events recorded before it was kept). */
    modelCalls: z.array(modelCallSchema).optional(),
    /** As on ExecutionStepCompleted: the cost of the tokens the failed step used. */
    costUsd: z.number().nonnegative().nullable().optional(),
    /** As on ExecutionStepCompleted: the models given up on before `model` failed the step. */
    fallbacks: z.array(fallenBackSchema).optional(),
  }),
);

/**
 * Tokens one llm call used, charged to the organization's credits. `costUsd`, added later (absent in
 * earlier events), is what they cost at the catalog's prices when charged (null: no price known):
 * recorded, so a later price change never rewrites what a run cost.
 */
export const CreditsConsumed = defineEvent(
  'CreditsConsumed',
  1,
  z.object({ executionId: z.string(), organizationId: z.string(), blockName: z.string(), model: z.string(), tokens: z.number().int().min(0), costUsd: z.number().nonnegative().nullable().optional() }),
);

/** The run ended badly. Version 2 added the reason `cancelled`; version 1 data is valid as it is. */
export const ExecutionFailed = defineEvent(
  'ExecutionFailed',
  2,
  z.object({
    executionId: z.string(),
    reason: z.enum(failureReasons),
    code: z.string(),
    message: z.string(),
    stepIndex: z.number().int().nullable(),
    blockName: z.string().nullable(),
    durationMs: z.number().int(),
  }),
);

const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
export type RequestedToolCall = z.infer<typeof toolCallSchema>;

/**
 * A tools-enabled block's model asked for tool calls: the run waits for the caller. The service
 * keeps the conversation's digest, not the conversation: the caller carries it.
 */
export const ExecutionPausedForToolCalls = defineEvent(
  'ExecutionPausedForToolCalls',
  1,
  z.object({
    executionId: z.string(),
    stepIndex: z.number().int(),
    blockId: z.string(),
    blockName: z.string(),
    /** Model turns of this block that asked for tools so far, this one included. */
    iterationsUsed: z.number().int().min(1),
    toolCalls: z.array(toolCallSchema),
    messagesDigest: z.string(),
    messageCount: z.number().int(),
  }),
);

/**
 * A caller sent the results of the requested calls; the paused block goes on. Version 2 records the
 * results themselves (each call's id, tool name and content), so a backtest can replay a tool-calling
 * run without its caller; version 1 events are upcast with `toolResults: null` (not recorded).
 */
export const toolResultSchema = z.object({ toolCallId: z.string(), name: z.string(), content: z.string() });
export type RecordedToolResult = z.infer<typeof toolResultSchema>;
export const ExecutionResumed = defineEvent(
  'ExecutionResumed',
  2,
  z.object({ executionId: z.string(), stepIndex: z.number().int(), blockName: z.string(), iterationsUsed: z.number().int(), toolCallIds: z.array(z.string()), toolResults: z.array(toolResultSchema).nullable() }),
);

/**
 * The run ended well. Version 2: `result` is always an object (see outputShape.ts); version 1 stored
 * the last output as it was and is upcast by wrapping it.
 */
export const ExecutionCompleted = defineEvent('ExecutionCompleted', 2, z.object({ executionId: z.string(), result: z.record(z.string(), z.unknown()), durationMs: z.number().int() }));

/** An operator reran this run: the new run's id, recorded in the original's stream (whatever its state) so each links to the other. */
export const ExecutionRerunStarted = defineEvent('ExecutionRerunStarted', 1, z.object({ executionId: z.string(), rerunExecutionId: z.string() }));

/**
 * The run's personal data was erased: its data key is removed, so every sealed field of its events
 * (src/domain/privacy/sealedFields.ts) reads as erased from now on; what the run did stays. `trigger`:
 * someone asked (`request`, the principal in the metadata and their reason), or the retention period
 * of its organization or project ran out (`retention`).
 */
export const RunDataErased = defineEvent(
  'RunDataErased',
  1,
  z.object({ executionId: z.string(), trigger: z.enum(['request', 'retention']), reason: z.string().max(1000), erasedAt: z.iso.datetime() }),
);

export type ExecutionEvent =
  | EventOf<typeof ExecutionRequested>
  | EventOf<typeof JobClaimed>
  | EventOf<typeof ExecutionStepStarted>
  | EventOf<typeof ExecutionStepCompleted>
  | EventOf<typeof ExecutionStepFailed>
  | EventOf<typeof ExecutionStepSkipped>
  | EventOf<typeof CreditsConsumed>
  | EventOf<typeof ExecutionFailed>
  | EventOf<typeof ExecutionPausedForToolCalls>
  | EventOf<typeof ExecutionResumed>
  | EventOf<typeof ExecutionCompleted>
  | EventOf<typeof ExecutionRerunStarted>
  | EventOf<typeof RunDataErased>;

export const executionStream = (executionId: string) => `execution-${executionId}`;

/**
 * Charges for model calls a run's worker made but could not record with the run: the run's stream
 * moved on while the call was in flight (another worker took the job over, or it was cancelled).
 * The provider billed those tokens, so they are charged here, `CreditsConsumed` as in any stream.
 */
export const runLateChargesStream = (executionId: string) => `charges-${executionId}`;
