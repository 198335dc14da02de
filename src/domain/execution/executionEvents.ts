import { z } from 'zod';
import { processorTypes } from '../blocks/blockKinds.ts';
import type { HttpBlockEvent } from '../blocks/http/httpEvents.ts';
import type { ApprovalEvent } from '../blocks/approval/approvalEvents.ts';
import type { SubflowEvent } from '../blocks/flow/subflowEvents.ts';
import { parentLinkSchema } from '../blocks/flow/subflowLink.ts';
import { blockRef } from './blockRef.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { attachmentSchema } from './attachment.ts';
import { operational, personal } from '../privacy/dataClass.ts';
import { aCode, aHash, aModel, aName, aTime, anId, callbackUrl, workerName } from '../privacy/operationalText.ts';

/** Why a run failed. `cancelled` (ExecutionFailed v2): an operator cancelled a run that had not ended. */
export const failureReasons = ['error', 'credits_exhausted', 'byok_rejected', 'cancelled'] as const;
export type FailureReason = (typeof failureReasons)[number];

const usageSchema = z.object({ promptTokens: z.number().int(), completionTokens: z.number().int(), totalTokens: z.number().int() });
export type TokenUsage = z.infer<typeof usageSchema>;

/**
 * The webhook events a /jobs caller may subscribe to: the spec's two, and `flow.waiting` (an
 * addition: the run waits for an approval), sent only to callers who ask for it by name.
 */
export const webhookEvents = ['flow.completed', 'flow.failed', 'flow.waiting'] as const;
/** What a job without `callbackEvents` subscribes to: the spec's two. */
export const defaultWebhookEvents = ['flow.completed', 'flow.failed'] as const satisfies readonly (typeof webhookEvents)[number][];


/** The service's own words about a failure (failureMessage.ts): what came from outside is the sealed `detail`. */
const serviceWords = () => operational(z.string(), "the service's own words for the failure, the same for every run that fails the same way: what came from outside is the sealed detail");
/** What came from outside about a failure: a thrown text, a provider's error body, a canceller's reason. */
const outsideWords = () => personal(z.string().nullable(), null);
/** Placeholders of a block's prompt: names from the flow's configuration. */
const placeholderNames = () => z.array(operational(z.string(), "a placeholder's name from the block's prompt: configuration"));
export type WebhookEventName = (typeof webhookEvents)[number];

/**
 * A run was asked for: which version it runs and with what input. Version 2 added the webhook
 * subscription of /jobs runs (version 1 events are upcast with none); version 3 added test runs
 * (mode `test`, and the test run it belongs to; version 2 events are upcast with none). A test run
 * of a flow's draft has versionNumber 0 and a versionId naming its snapshot (`draft:<id of the test or suite run>`).
 * Version 5 added backtest runs (mode `backtest`, and the backtest they belong to) and the tools the
 * caller declared, so a backtest can declare them again (version 4 events are upcast with none of either).
 * Version 7 may subscribe to `flow.waiting` (a version 6 event reads the same).
 * Version 8 added child runs (mode `subflow`, and `parent`: the run and block that started it; earlier runs had none).
 */
const toolSchema = z.object({ type: z.literal('function'), function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) });
const toolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]);
export const runModes = ['sync', 'async', 'step', 'test', 'backtest', 'subflow'] as const;
export type RunMode = (typeof runModes)[number];

export const ExecutionRequested = defineEvent(
  'ExecutionRequested',
  8,
  z.object({
    executionId: anId(),
    flowId: anId(),
    versionId: anId(),
    versionNumber: z.number().int(),
    organizationId: anId(),
    projectId: anId(),
    mode: z.enum(runModes),
    message: personal(z.string().nullable(), null),
    parameters: personal(z.record(z.string(), z.unknown()), {}),
    attachments: personal(z.array(attachmentSchema), []),
    apiKeyId: anId().nullable(),
    blockCount: z.number().int(),
    callbackUrl: callbackUrl().nullable(),
    callbackEvents: z.array(z.enum(webhookEvents)),
    testRunId: anId().nullable(),
    /** v4: the run this one reruns (same input, same version), or null. */
    rerunOf: anId().nullable(),
    /** v5: the backtest this run belongs to (mode `backtest`), or null. */
    backtestId: anId().nullable(),
    /** v5: the tools the caller declared with the run, or null (none, or recorded before v5). */
    tools: personal(z.object({ tools: z.array(toolSchema), toolChoice: toolChoiceSchema }).nullable(), null),
    /** v6: the schedule firing that started this job, or null. */
    schedule: z.object({ scheduleId: anId(), scheduledFor: aTime() }).nullable(),
    /** v8: the run whose `flow` block started this one (mode `subflow`), or null. */
    parent: parentLinkSchema.nullable(),
  }),
);

/** A job runner took an accepted /jobs run (or took it over after the previous claim's lease ran out). */
export const JobClaimed = defineEvent('JobClaimed', 1, z.object({ executionId: anId(), worker: workerName(), claim: z.number().int().min(1) }));


export const ExecutionStepStarted = defineEvent(
  'ExecutionStepStarted',
  1,
  z.object({
    ...blockRef,
    processorType: z.enum(processorTypes),
    /** What the block received: the rendered prompt for llm blocks, the input object otherwise. */
    input: personal(z.unknown(), null),
    /** Placeholders that rendered empty because their value was absent. */
    missingPlaceholders: placeholderNames(),
  }),
);

/**
 * A block (or every block of a parallel step) did not run: its `run_if` condition was not true, or
 * (version 2) it is a switch's branch that was not chosen. What the condition said and the value of
 * each path it read are kept, so a trace shows why. It costs nothing; later blocks read its output
 * as null. Version 2 added `branch` (null for a run_if's skip, as every version 1 event was): the
 * block the switch chose instead (null: none), and whether this case's condition was evaluated (a
 * case after the chosen one, and the default, are not).
 */
export const ExecutionStepSkipped = defineEvent(
  'ExecutionStepSkipped',
  2,
  z.object({
    ...blockRef,
    condition: operational(z.string(), "the block's run_if condition or its switch case's: configuration"),
    /** Each path the condition read, as written, with its value then (null: absent). */
    values: personal(z.record(z.string(), z.unknown()), {}),
    branch: z.object({ chosen: aName().nullable(), evaluated: z.boolean() }).nullable(),
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
export const fallenBackSchema = z.object({ model: aModel(), code: aCode(), message: serviceWords() });
export type FallenBack = z.infer<typeof fallenBackSchema>;

export const modelCallSchema = z.object({ startMs: z.number().int().min(0), durationMs: z.number().int().min(0), outcome: z.enum(['answered', 'failed']) });
export type ModelCall = z.infer<typeof modelCallSchema>;

/**
 * A block's start, told by its completion (version 3): the start was still waiting to be appended when
 * the block completed, so both went in one event rather than two (src/domain/execution/joinedStepStarts.ts).
 * When it was noted, and what the start event would have said but its input (`input` beside it, sealed).
 */
export const joinedStartSchema = z.object({ at: z.iso.datetime(), processorType: z.enum(processorTypes), missingPlaceholders: placeholderNames() });

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
    input: personal(z.unknown().optional(), null),
    output: personal(z.unknown(), null),
    model: aModel().nullable(),
    usage: usageSchema.nullable(),
    durationMs: z.number().int(),
    attempts: z.number().int(),
    /** Why replies were refused: a parser's or validator's words can quote the reply. */
    validationErrors: personal(z.array(z.string()), []),
    /** The model's replies refused before the one taken (their tokens are in `usage`); absent when none was. */
    rejectedReplies: personal(z.array(modelAttemptSchema).optional(), []),
    /** Each request to the model, in order; absent for other blocks and in events recorded before it was kept. */
    modelCalls: z.array(modelCallSchema).optional(),
    /** What the step's tokens cost in US dollars at the catalog's prices when it ran (null: no price known); absent for other blocks and before costs were kept. */
    costUsd: z.number().nonnegative().nullable().optional(),
    /** The models tried before `model` answered, each with why it was given up on; absent when the block's own model answered. */
    fallbacks: z.array(fallenBackSchema).optional(),
  }),
);

/**
 * A block that started did not finish: why (the same code, message and detail the run fails with),
 * and, for llm blocks, every model call it made with its reply, tokens and why it was refused. Its
 * tokens are charged (CreditsConsumed) in the same append. Version 2 added `detail`: `message` is
 * the service's own words since, and what came from outside (a thrown text, a provider's error body)
 * is the detail, sealed with the run's data (version 1 messages are kept as they were written, with
 * no detail).
 */
export const ExecutionStepFailed = defineEvent(
  'ExecutionStepFailed',
  2,
  z.object({
    ...blockRef,
    code: aCode(),
    message: serviceWords(),
    detail: outsideWords(),
    durationMs: z.number().int(),
    model: aModel().nullable(),
    usage: usageSchema.nullable(),
    attempts: personal(z.array(modelAttemptSchema), []),
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
  z.object({ executionId: anId(), organizationId: anId(), blockName: aName(), model: aModel(), tokens: z.number().int().min(0), costUsd: z.number().nonnegative().nullable().optional() }),
);

/**
 * The run ended badly. Version 2 added the reason `cancelled`; version 1 data is valid as it is.
 * Version 3 added `detail`, as ExecutionStepFailed version 2 did: the service's words in `message`,
 * what came from outside (an operator's reason for a cancellation included) in the sealed `detail`.
 */
export const ExecutionFailed = defineEvent(
  'ExecutionFailed',
  3,
  z.object({
    executionId: anId(),
    reason: z.enum(failureReasons),
    code: aCode(),
    message: serviceWords(),
    detail: outsideWords(),
    stepIndex: z.number().int().nullable(),
    blockName: aName().nullable(),
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
    executionId: anId(),
    stepIndex: z.number().int(),
    blockId: anId(),
    blockName: aName(),
    /** Model turns of this block that asked for tools so far, this one included. */
    iterationsUsed: z.number().int().min(1),
    toolCalls: personal(z.array(toolCallSchema), []),
    messagesDigest: aHash(),
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
  z.object({
    executionId: anId(),
    stepIndex: z.number().int(),
    blockName: aName(),
    iterationsUsed: z.number().int(),
    toolCallIds: z.array(operational(z.string(), "the ids a model gave its tool calls: opaque tokens that pair calls with results")),
    toolResults: personal(z.array(toolResultSchema).nullable(), null),
  }),
);

/**
 * The run ended well. Version 2: `result` is always an object (see outputShape.ts); version 1 stored
 * the last output as it was and is upcast by wrapping it.
 */
export const ExecutionCompleted = defineEvent('ExecutionCompleted', 2, z.object({ executionId: anId(), result: personal(z.record(z.string(), z.unknown()), {}), durationMs: z.number().int() }));

/** An operator reran this run: the new run's id, recorded in the original's stream (whatever its state) so each links to the other. */
export const ExecutionRerunStarted = defineEvent('ExecutionRerunStarted', 1, z.object({ executionId: anId(), rerunExecutionId: anId() }));

/**
 * How an erasure by content found the run (`seqflow runs erase --where`): the input field it matched,
 * and an HMAC-SHA256 of the value under a random salt of the command's, so an auditor who is given the
 * value can check it was this one, while the log never holds the value itself.
 */
export const erasureMatchSchema = z.object({
  field: operational(z.string(), 'the path of the input field an erasure by content matched (input.message, input.parameters.<key>): never its value'),
  salt: operational(z.string(), "a random salt of the erasure command's, for the value's hash"),
  valueHash: aHash(),
});
export type ErasureMatch = z.infer<typeof erasureMatchSchema>;

/**
 * The run's personal data was erased: its data key is removed, so every sealed field of its events
 * (src/domain/privacy/sealedFields.ts) reads as erased from now on; what the run did stays. `trigger`:
 * someone asked (`request`, the principal in the metadata and their reason), or the retention period
 * of its organization or project ran out (`retention`). Version 2 added `match`: how an erasure by
 * content found the run (null for one asked for by id, by retention, and in version 1 events, whose
 * reason the CLI wrote with the matched value in it).
 */
export const RunDataErased = defineEvent(
  'RunDataErased',
  2,
  z.object({
    executionId: anId(),
    trigger: z.enum(['request', 'retention']),
    reason: operational(z.string().max(1000), "the operator's own reason for the erasure (a ticket, a request's number), kept as its audit trail; an erasure by content records the field it matched and a salted hash of the value, never the value"),
    erasedAt: z.iso.datetime(),
    match: erasureMatchSchema.nullable(),
  }),
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
  | EventOf<typeof RunDataErased>
  | HttpBlockEvent
  | ApprovalEvent
  | SubflowEvent;

export const executionStream = (executionId: string) => `execution-${executionId}`;

/**
 * Charges for model calls a run's worker made but could not record with the run: the run's stream
 * moved on while the call was in flight (another worker took the job over, or it was cancelled).
 * The provider billed those tokens, so they are charged here, `CreditsConsumed` as in any stream.
 */
export const runLateChargesStream = (executionId: string) => `charges-${executionId}`;
