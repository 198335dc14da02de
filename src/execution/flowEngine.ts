import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ParentLink } from '../domain/blocks/flow/subflowLink.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import { execution } from '../domain/execution/execution.ts';
import { outputOfStep } from '../domain/execution/runHistory.ts';
import { type ExecutionEvent, type RunMode, executionStream } from '../domain/execution/executionEvents.ts';
import { type StoredStep, blocksOfStep, countBlocks } from '../domain/flows/flowDefinition.ts';
import { WrongExpectedRevision } from '../eventstore/eventStore.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { EngineDependencies, ToolRequest } from './engineDependencies.ts';
import type { ExecutionRequest } from './executionRequest.ts';
import { createExecutionRecorder } from './executionRecorder.ts';
import { runHistoryOf } from './runHistoryOf.ts';
import { blockKey } from './runContext.ts';
import { type ExecutionOutcome, runSteps } from './runSteps.ts';

/*
 * The engine's entry points: a fresh run, a resume of a tool pause, a /jobs run accepted and later
 * continued (or taken over) by a job runner. The steps themselves run in runSteps.ts.
 */
export type { ExecutionRequest };

export interface ResumeInput {
  executionId: string;
  flowId: string;
  pausedAtStep: string;
  toolCallMessages: unknown[];
  tools: ToolRequest;
  /** Whether the resuming call reads the run's events from the log as they come (/step). */
  followed: boolean;
  principal: Principal;
  /** The API request that resumes the run: on the events from the resume on. */
  requestId?: string;
  /** The resuming request's trace: linked from the run's span, which stays in the run's own trace. */
  traceparent?: string;
  /** The steps of a version, by id (versions are immutable). */
  loadSteps: (versionId: string) => Promise<StoredStep[]>;
}

/** A run that has passed every check and is ready to go; `start` runs it (and may outlive the request). */
export interface PreparedRun {
  executionId: string;
  /** The stream revision before this call's first event: a follower reads what comes after it. */
  afterRevision: number;
  /** Settles once `start` has written the run's first event, or fails with `start` if it could not. */
  started: Promise<void>;
  start: () => Promise<ExecutionOutcome>;
}

/**
 * Accepts a /jobs run: its ExecutionRequested is written durably and nothing else happens; a job
 * runner takes it from there (continueExecution).
 */
export async function acceptJob(deps: EngineDependencies, request: ExecutionRequest): Promise<number> {
  const recorder = createExecutionRecorder(deps, request.executionId, originOf(request));
  const position = await recorder.record(requestedEvent(request));
  deps.updates.jobAccepted(request.executionId, recorder.lastAppended()[0]!);
  return position;
}

const originOf = (request: { principal: Principal; requestId?: string; traceparent?: string }) => ({ principal: request.principal, requestId: request.requestId, traceparent: request.traceparent });

/**
 * How long a run's noted events (its blocks' starts and quick completions) wait for the run's next
 * durable record: the end, the next pause, an llm block's completion. A fresh run's request goes at
 * the end of its turn all the same (the recorder's noteAndWait), so the run is in the log before its
 * first model call answers. A resumed run's
 * resume itself is appended before the model call (it decides a race for the pause), so a tool round
 * trip is two appends, the first not waiting for the disk. A reader that follows the log (/step, a
 * test run) gets its events at once; others show up at most this much later, and are no less
 * durable (a noted event is durable with the next record either way). Waiting also lets a block's
 * start go in its completion's event (joinedStepStarts.ts). Measured on a three-block /execute run
 * at concurrency 32 (`bench:profile`, two pairs alternating): 2.0 appends per run instead of 3.7,
 * 4.6-4.8 statements instead of 5.7, 8.1 ms of machine CPU instead of 9.2-9.3 (PostgreSQL 2.1
 * instead of 2.4-2.6), 209 runs/s instead of 186-189 (fresh runs did not wait in an earlier round,
 * when every start and completion was an event of its own and waiting measured worse).
 */
const NOTES_LINGER_MS = 100;

/** What a resumed or taken-over run knows from its own events. */
export const runInputOf = (executionId: string, organizationId: string, flowId: string, steps: StoredStep[], requested: { projectId: string; mode: RunMode; message: string | null; parameters: Record<string, unknown>; attachments: Attachment[]; parent: ParentLink | null }) => ({
  executionId,
  organizationId,
  projectId: requested.projectId,
  mode: requested.mode,
  flowId,
  steps,
  message: requested.message,
  parameters: requested.parameters,
  attachments: requested.attachments,
  parent: requested.parent,
});

const requestedEvent = (request: ExecutionRequest): ExecutionEvent => ({
  type: 'ExecutionRequested',
  data: {
    executionId: request.executionId,
    flowId: request.flowId,
    versionId: request.versionId,
    versionNumber: request.versionNumber,
    organizationId: request.organizationId,
    projectId: request.projectId,
    mode: request.mode,
    message: request.message,
    parameters: request.parameters,
    attachments: request.attachments,
    apiKeyId: request.apiKeyId,
    blockCount: countBlocks(request.steps),
    callbackUrl: request.callback?.url ?? null,
    callbackEvents: request.callback?.events ?? [],
    testRunId: request.testRunId ?? null,
    rerunOf: request.rerunOf ?? null,
    backtestId: request.backtestId ?? null,
    tools: request.tools ?? null,
    schedule: request.schedule ?? null,
    parent: request.parent ?? null,
  },
});

/** `started` of a prepared run: settled by `start`, once the run's first append has settled. */
function startSignal() {
  const signal: { promise?: Promise<void>; resolve?: () => void; reject?: (error: unknown) => void } = {};
  signal.promise = new Promise<void>((resolve, reject) => Object.assign(signal, { resolve, reject }));
  signal.promise.catch(() => undefined); // observed by whoever awaits `started`
  return signal as Required<typeof signal>;
}

/**
 * A fresh run, prepared. `idLeavesEarly`: the run's id is told to its caller before its outcome (a
 * /step stream, MCP `run_flow` that stops waiting), so its request is appended durably before
 * `started` settles: a database crash cannot lose a run whose id is already out. Otherwise the
 * request goes without waiting for the disk, made durable by the run's next record.
 */
export async function prepareExecution(deps: EngineDependencies, request: ExecutionRequest, { idLeavesEarly = false }: { idLeavesEarly?: boolean } = {}): Promise<PreparedRun> {
  const recorder = createExecutionRecorder(deps, request.executionId, originOf(request), undefined, { lingerMs: idLeavesEarly ? 0 : NOTES_LINGER_MS });
  const started = startSignal();
  return {
    executionId: request.executionId,
    afterRevision: -1,
    started: started.promise,
    start: async () => {
      const startedAt = performance.now();
      // The run goes on while its request is appended: its first blocks' events join that append if
      // they come before it goes out (a passthrough run is then one append), and the first model call
      // does not wait for it. If the append fails, the recorder is broken and the run fails at its
      // next durable record, before any of its results is answered; `started` says which happened.
      (idLeavesEarly ? recorder.record(requestedEvent(request)) : recorder.noteAndWait(requestedEvent(request))).then(() => started.resolve(), started.reject);
      return runSteps(deps, { ...request, recorder, accumulated: {}, trace: { parent: request.traceparent }, startedAt }, 0, undefined, undefined);
    },
  };
}

/**
 * Continues a paused run with the caller's tool results: checks the resume (the decider, on the
 * run's events: a resume it refuses is answered with nothing appended); `start` records it and goes
 * on with the run. Everything it trusts comes from the run's own events: the version, the input, the
 * earlier outputs, the iteration count, and the pause the results must answer.
 *
 * The race for a pause is decided before money is spent: `start` appends the resume (at once, not
 * waiting for the disk: the commit decides the race, and the run's next record makes it durable)
 * and only then goes on to the model call. Two racing resumes append against the same revision: one
 * wins; the other's append is refused, and it fails with EXECUTION_ID_INVALID having called no model.
 * The pause this process remembers for /step readers is forgotten once this resume has won it.
 */
export async function prepareResume(deps: EngineDependencies, input: ResumeInput): Promise<PreparedRun> {
  const loaded = await loadStream(deps.eventStore, executionStream(input.executionId), execution);
  const { state, revision } = loaded;
  if (state.status === 'none' || state.flowId !== input.flowId) throw new ApiError('EXECUTION_ID_INVALID', 'executionId does not match a run of this flow');
  const steps = await input.loadSteps(state.versionId);
  // A step of its own, or a switch's branch: the blocks that may pause (toolRules.ts).
  const pausable = steps.some((step) => ('block' in step || 'switch' in step) && blocksOfStep(step).some((block) => block.name === input.pausedAtStep && block.processor_config?.tools_enabled));
  if (!pausable) throw new ApiError('PAUSED_STEP_INVALID', `pausedAtStep '${input.pausedAtStep}' is not a tools-enabled block of the version this run executes`);

  const resume = { pausedAtStep: input.pausedAtStep, toolCallMessages: input.toolCallMessages };
  // Throws the refusal (EXECUTION_ID_INVALID, TOOL_HISTORY_TAMPERED, TOOL_RESULTS_MISMATCH); the
  // recorder decides the same command again on the same state when it appends.
  execution.decide({ type: 'Resume', data: resume, flowId: input.flowId }, state);
  const recorder = createExecutionRecorder(deps, input.executionId, originOf(input), { state, revision }, { lingerMs: input.followed ? 0 : NOTES_LINGER_MS });
  const started = startSignal();

  const history = runHistoryOf(loaded);
  const requested = history.requested!;
  const pause = state.status === 'paused' && state.pause ? state.pause : undefined;
  const stepIndex = pause!.stepIndex;
  const accumulated = { ...history.outputs };
  const resumedPause = deps.updates.pause(input.executionId);
  return {
    executionId: input.executionId,
    afterRevision: revision,
    started: started.promise,
    start: async () => {
      try {
        await recorder.resume(resume, input.flowId);
      } catch (error) {
        const refused = error instanceof WrongExpectedRevision ? new ApiError('EXECUTION_ID_INVALID', 'this pause has already been resumed') : error;
        started.reject(refused);
        throw refused;
      }
      started.resolve();
      // Only the pause this resume took: a newer one (the winner's next pause) stays.
      deps.updates.forgetPause(input.executionId, resumedPause);
      return runSteps(
        deps,
        {
          ...runInputOf(input.executionId, state.organizationId, state.flowId, steps, requested),
          tools: input.tools,
          recorder,
          accumulated,
          // A switch's branches skipped before the pause are recorded already: its choice is decided again, not recorded twice.
          completed: new Map(history.skippedSteps.map((c) => [blockKey(c.stepIndex, c.blockName, null), null])),
          // The run's spans stay in its own trace (that of the request that started it); the resuming request is a link.
          trace: { parent: loaded.recorded[0]?.metadata.traceparent, link: input.traceparent },
        },
        stepIndex,
        stepIndex === 0 ? undefined : outputOfStep(history, steps[stepIndex - 1]!, stepIndex - 1),
        input.toolCallMessages as ChatCompletionMessageParam[],
      );
    },
  };
}
