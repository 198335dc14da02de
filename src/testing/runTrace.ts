import { blockKinds } from '../domain/blocks/blockKinds.ts';
import { deciderName } from '../domain/blocks/approval/approvalEvents.ts';
import { sumUsd } from '../domain/models/modelCatalog.ts';
import { routeModel } from '../domain/models/modelRoute.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { durationOf } from '../domain/execution/runHistory.ts';
import type { ExecutionEvent, FallenBack, ModelAttempt, ModelCall } from '../domain/execution/executionEvents.ts';
import { readRunHistory } from '../execution/runHistoryOf.ts';
import { runEventsApart } from '../execution/runEventsApart.ts';
import { truncateStrings } from '../domain/execution/truncate.ts';
import { testRunStream } from '../domain/testing/testRunEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import { type AuthoringScope, inScope } from '../authoring/authoringScope.ts';

/**
 * Traces of any run (test or not), read from the log alone: the run's own stream, and for a test
 * run its test run's stream. Long strings are cut with a marker saying their full length.
 */
async function loadRun(eventStore: EventStore, scope: AuthoringScope, runId: string) {
  const first = await readRunHistory(eventStore, runId);
  // A test run's id (as list_runs and the test tools name it) reads as the run it made.
  const { recorded, events, history } = first.history.requested ? first : await readRunHistory(eventStore, (await executionOfTestRun(eventStore, runId)) ?? runId);
  if (!history.requested || history.status === null || !inScope(scope, history.requested.organizationId)) {
    throw new ApiError('EXECUTION_NOT_FOUND', `No run ${runId}`);
  }
  // A completion that tells its block's start reads as the two events it stands for.
  return { ...runEventsApart(recorded, events), history, requested: history.requested, status: history.status };
}

async function executionOfTestRun(eventStore: EventStore, testRunId: string): Promise<string | undefined> {
  const [started] = await eventStore.readStream(testRunStream(testRunId), { maxCount: 1 });
  const event = started ? decodeRecorded(started) : undefined;
  return event?.type === 'TestRunStarted' ? event.data.executionId : undefined;
}

const at = (recorded: RecordedEvent[], i: number) => recorded[i]!.metadata.occurredAt;

/**
 * What a finished step says of its model: which answered (or failed) and its provider, the tokens,
 * the cost as recorded (llm steps since costs are kept; null when no price was known) and the
 * models given up on before it, when there were.
 */
const modelFields = (data: { model: string | null; usage: unknown; costUsd?: number | null | undefined; fallbacks?: FallenBack[] | undefined }) => ({
  model: data.model,
  ...(data.model === null ? {} : { provider: routeModel(data.model).provider }),
  usage: data.usage,
  ...(data.costUsd === undefined ? {} : { costUsd: data.costUsd }),
  ...(data.fallbacks ? { fallbacks: data.fallbacks } : {}),
});
const runCost = (steps: Record<string, unknown>[]) => {
  const costs = steps.map((s) => s.costUsd).filter((c): c is number => typeof c === 'number');
  return costs.length === 0 ? null : sumUsd(costs);
};

export interface TraceOptions {
  /** Strings longer than this are cut with a marker (default 2000). */
  maxStringLength?: number;
}

export async function runTrace(eventStore: EventStore, scope: AuthoringScope, executionId: string, options: TraceOptions = {}) {
  const cut = (value: unknown) => truncateStrings(value, options.maxStringLength);
  const { recorded, events, history, requested, status } = await loadRun(eventStore, scope, executionId);
  const steps: Record<string, unknown>[] = [];
  const toolRounds: Record<string, unknown>[] = [];
  const requestedMs = Date.parse(history.requestedAt ?? at(recorded, 0));
  /**
   * Where a finished step sits on the run's waterfall: it began `durationMs` before the event that
   * ended it was written (ms after the request), and its model requests at their offsets within it.
   */
  const timing = (i: number, data: { durationMs: number; modelCalls?: ModelCall[] | undefined }) => ({
    offsetMs: Math.max(0, Date.parse(at(recorded, i)) - data.durationMs - requestedMs),
    modelCalls: data.modelCalls ?? [],
  });
  const detailOf = failureDetailShown(events);
  events.forEach((event, i) => {
    if (event.type === 'ExecutionStepStarted') steps.push({ stepId: event.data.blockId, name: event.data.blockName, stepIndex: event.data.stepIndex, iteration: event.data.iteration, processorType: event.data.processorType, startedAt: at(recorded, i), status: 'started', offsetMs: Math.max(0, Date.parse(at(recorded, i)) - requestedMs), modelCalls: [], requests: [] });
    // An http block's attempts, at their offsets in its step; the one a completed step ended on answered.
    if (event.type === 'HttpRequestAttempted') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.iteration === event.data.iteration && s.status === 'started');
      (step?.requests as StepRequest[] | undefined)?.push({ attempt: event.data.attempt, startMs: event.data.startMs, durationMs: event.data.durationMs, status: event.data.status, outcome: 'failed' });
    }
    // An approval step waits between its start and its completion: for whom, and how it was decided.
    if (event.type === 'ApprovalRequested') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.status === 'started');
      Object.assign(step ?? {}, { status: 'waiting', approval: { approvers: event.data.approvers, onTimeout: event.data.onTimeout, timeoutMs: event.data.timeoutMs, requestedAt: at(recorded, i), decision: null, decidedBy: null, decidedAt: null } });
    }
    if (event.type === 'ApprovalDecided') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.status === 'waiting');
      if (step) Object.assign(step, { status: 'started', approval: { ...(step.approval as object), decision: event.data.decision ?? 'timed_out', decidedBy: deciderName(event.data.decidedBy), decidedAt: event.data.decidedAt } });
    }
    // A flow step's child run: its own trace is one more call away (its id), its cost this step's.
    if (event.type === 'SubflowStarted') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.iteration === event.data.iteration && s.status === 'started');
      Object.assign(step ?? {}, { subflow: { executionId: event.data.childExecutionId, flowId: event.data.childFlowId, versionNumber: event.data.childVersionNumber } });
    }
    if (event.type === 'ExecutionStepCompleted') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.iteration === event.data.iteration && s.status === 'started');
      const last = (step?.requests as StepRequest[] | undefined)?.at(-1);
      if (last) last.outcome = 'answered';
      Object.assign(step ?? {}, { status: 'completed', ...modelFields(event.data), durationMs: event.data.durationMs, attempts: attemptsOf(event.data.modelCalls, event.data.attempts), output: cut(event.data.output), ...timing(i, event.data) });
    }
    if (event.type === 'ExecutionStepFailed') {
      const step = steps.find((s) => s.stepId === event.data.blockId && s.iteration === event.data.iteration && s.status === 'started');
      Object.assign(step ?? {}, { status: 'failed', ...modelFields(event.data), durationMs: event.data.durationMs, attempts: attemptsOf(event.data.modelCalls, event.data.attempts.length), error: { code: event.data.code, message: cut(event.data.message), detail: cut(detailOf(event.data)) }, ...timing(i, event.data) });
    }
    // A skipped block shows in its place with why: the condition and what it read (its data, sealed like an input).
    if (event.type === 'ExecutionStepSkipped') steps.push({ stepId: event.data.blockId, name: event.data.blockName, stepIndex: event.data.stepIndex, iteration: event.data.iteration, startedAt: at(recorded, i), status: 'skipped', offsetMs: Math.max(0, Date.parse(at(recorded, i)) - requestedMs), durationMs: 0, condition: event.data.condition, conditionValues: cut(event.data.values), ...(event.data.branch ? { branch: event.data.branch } : {}), modelCalls: [] });
    if (event.type === 'ExecutionPausedForToolCalls') toolRounds.push({ kind: 'paused', stepId: event.data.blockId, name: event.data.blockName, iterationsUsed: event.data.iterationsUsed, toolCalls: cut(event.data.toolCalls), at: at(recorded, i) });
    if (event.type === 'ExecutionResumed') toolRounds.push({ kind: 'resumed', name: event.data.blockName, toolCallIds: event.data.toolCallIds, at: at(recorded, i) });
  });
  const testRun = requested.testRunId ? await testRunOf(eventStore, requested.testRunId) : null;
  const ending = history.ending;
  const erasure = events.find((e) => e.type === 'RunDataErased');
  const erasedBy = recorded.find((r) => r.type === 'RunDataErased')?.metadata.principal;
  return {
    // The run's own id, also when it was named by its test run's.
    executionId: requested.executionId,
    flowId: requested.flowId,
    mode: requested.mode,
    version: { versionId: requested.versionId, number: requested.versionNumber },
    /** A child run's parent: the run and the flow block that started it (null for a run a caller started). */
    parent: requested.parent,
    target: testRun?.target ?? null,
    status,
    requestedAt: history.requestedAt,
    /** What the caller sent: the message, parameters and attachments (long strings cut). */
    input: cut({ message: requested.message, parameters: requested.parameters, attachments: requested.attachments }),
    endedAt: ending?.at ?? null,
    durationMs: durationOf(ending),
    tokens: history.tokens,
    /** What the run's model calls cost in US dollars, summed over the steps that record a cost (null: none does). */
    costUsd: runCost(steps),
    steps,
    toolRounds,
    result: ending?.status === 'completed' ? cut(ending.result) : null,
    failure: ending?.status === 'failed' ? { code: ending.failure.code, message: ending.failure.message, detail: cut(detailOf(ending.failure)), reason: ending.failure.reason, step: ending.failure.blockName } : null,
    assertions: testRun?.results ?? null,
    /** Its personal data was erased (input, prompts, outputs, replies, tool calls and results read as erased): when, how, by whom and why. */
    dataErased: erasure?.type === 'RunDataErased' ? { at: erasure.data.erasedAt, trigger: erasure.data.trigger, reason: erasure.data.reason, by: erasedBy ?? null } : null,
  };
}

/** Every execution of one block in a run (one per loop item): prompt, system prompt, settings, input, output, model, usage, latency, attempts, tool rounds, error. */
export async function stepTrace(eventStore: EventStore, scope: AuthoringScope, executionId: string, stepId: string, options: TraceOptions = {}) {
  const cut = (value: unknown) => truncateStrings(value, options.maxStringLength);
  const { recorded, events, history, requested } = await loadRun(eventStore, scope, executionId);
  const started = events.flatMap((event, i) => (event.type === 'ExecutionStepStarted' && event.data.blockId === stepId ? [{ event, i }] : []));
  if (started.length === 0) throw new ApiError('BLOCK_NOT_FOUND', `Block ${stepId} did not run in ${executionId}`);
  const name = started[0]!.event.data.blockName;
  const failure = history.ending?.status === 'failed' && history.ending.failure.blockName === name ? history.ending.failure : null;
  const detailOf = failureDetailShown(events);
  return {
    executionId: requested.executionId,
    stepId,
    name,
    processorType: started[0]!.event.data.processorType,
    executions: started.map(({ event, i }) => {
      const input = event.data.input as { prompt?: string; model?: string; responseFormat?: unknown } | unknown;
      const ended = events.find((e) => (e.type === 'ExecutionStepCompleted' || e.type === 'ExecutionStepFailed') && e.data.blockId === stepId && e.data.iteration === event.data.iteration);
      const done = ended?.type === 'ExecutionStepCompleted' ? ended.data : null;
      const failed = ended?.type === 'ExecutionStepFailed' ? ended.data : null;
      // How the step's input reads is its kind's: a model's prompt and settings, or the input itself.
      const view = blockKinds[event.data.processorType].stepView(input);
      return {
        iteration: event.data.iteration,
        startedAt: at(recorded, i),
        prompt: cut(view.prompt),
        systemPrompt: cut(view.systemPrompt),
        /** The model settings sent (temperature, max_tokens or max_completion_tokens...), as the model took them. */
        settings: view.settings,
        missingPlaceholders: event.data.missingPlaceholders,
        responseFormat: view.responseFormat,
        input: cut(view.input),
        status: done ? 'completed' : failed ? 'failed' : 'started',
        output: done ? cut(done.output) : null,
        model: done?.model ?? failed?.model ?? null,
        usage: done?.usage ?? failed?.usage ?? null,
        latencyMs: done?.durationMs ?? failed?.durationMs ?? null,
        attempts: done ? attemptsOf(done.modelCalls, done.attempts) : failed ? attemptsOf(failed.modelCalls, failed.attempts.length) : null,
        validationErrors: done?.validationErrors ?? failed?.attempts.flatMap((a) => (a.rejection ? [a.rejection] : [])) ?? [],
        /** Each reply the model gave that was refused (all of a failed step's replies), cut to 2,000 characters with its full length. */
        replies: cut(failed?.attempts ?? done?.rejectedReplies ?? []) as ModelAttempt[],
        toolRounds: events.filter((e) => e.type === 'ExecutionPausedForToolCalls' && e.data.blockId === stepId && e.data.stepIndex === event.data.stepIndex).length,
        /** An http step's attempts: when each began in the step, how long it took, its status or what went wrong. */
        requests: events.flatMap((e) => (e.type === 'HttpRequestAttempted' && e.data.blockId === stepId && e.data.iteration === event.data.iteration ? [{ attempt: e.data.attempt, startMs: e.data.startMs, durationMs: e.data.durationMs, status: e.data.status, outcome: e.data.outcome }] : [])),
        /** A flow step's child run, or null. */
        subflow: subflowOf(events, stepId, event.data.iteration),
        error: failed ? { code: failed.code, message: cut(failed.message), detail: cut(detailOf(failed)) } : !done && failure ? { code: failure.code, message: cut(failure.message), detail: cut(detailOf(failure)) } : null,
      };
    }),
  };
}

/** The child run a flow step's execution started, as the trace names it. */
function subflowOf(events: readonly ExecutionEvent[], stepId: string, iteration: number | null) {
  const started = events.find((e) => e.type === 'SubflowStarted' && e.data.blockId === stepId && e.data.iteration === iteration);
  return started?.type === 'SubflowStarted' ? { executionId: started.data.childExecutionId, flowId: started.data.childFlowId, versionNumber: started.data.childVersionNumber } : null;
}

/**
 * A failure's detail as a trace shows it: what came from outside (failureMessage.ts), or `erased`
 * once the run's data is (the sealed detail then reads as null, as if there had been none).
 */
function failureDetailShown(events: readonly ExecutionEvent[]) {
  const erased = events.some((e) => e.type === 'RunDataErased');
  return (failure: { detail: string | null }) => (erased ? 'erased' : failure.detail);
}

/** One request of an http step as the trace and the waterfall show it (its attempt's event, HttpRequestAttempted). */
interface StepRequest {
  attempt: number;
  startMs: number;
  durationMs: number;
  status: number | null;
  outcome: 'answered' | 'failed';
}

async function testRunOf(eventStore: EventStore, testRunId: string) {
  const recorded = await eventStore.readStream(testRunStream(testRunId));
  let target: unknown = null;
  let results: unknown = null;
  for (const r of recorded) {
    const event = decodeRecorded(r);
    if (event.type === 'TestRunStarted') target = event.data.target.kind === 'version' ? { kind: 'version', number: event.data.target.number, versionId: event.data.target.versionId } : { kind: 'draft' };
    if (event.type === 'TestRunFinished') results = event.data.results;
  }
  return { target, results };
}

/**
 * A step's attempts: the requests made to its models, retries of unanswered ones (429, 5xx, a
 * timeout) included, where the step records them; before that, the replies it was given.
 */
function attemptsOf(modelCalls: readonly ModelCall[] | undefined, recorded: number): number {
  return modelCalls && modelCalls.length > 0 ? modelCalls.length : recorded;
}
