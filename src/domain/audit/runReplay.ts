import { ApiError } from '../errors/apiError.ts';
import type { StoredStep } from '../flows/flowDefinition.ts';
import { execution, type ExecutionState } from '../execution/execution.ts';
import type { ExecutionEvent } from '../execution/executionEvents.ts';
import { resultObject } from '../execution/outputShape.ts';
import { emptyRunHistory, evolveRunHistory, outputOfStep } from '../execution/runHistory.ts';
import { canonicalJson } from './canonicalJson.ts';

/** Where a replay parted from the record: the event (by index in the run's stream) and why. */
export interface Divergence {
  index: number;
  eventType: string;
  reason: string;
}

export interface RunReplayInput {
  /** The run's events in stream order, decoded through the upcasters, each with the time its command happened. */
  events: { event: ExecutionEvent; occurredAt: string }[];
  /** The steps the run executed (its published version, or a test run's draft snapshot); null when unknown. */
  steps: StoredStep[] | null;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * Audit replay of one run, with no network and no clock: the recorded facts (model replies, tool
 * results, code outputs) stand in for the calls, and each is decided again by the run's decider on
 * the state the facts before it built. It checks that the events form a legal sequence: requested
 * first; nothing after the end; every step completed once, after it started (a step may start again
 * only after a job takeover); every resume answering the pause before it; every approval decided
 * once, while the run waited for it; the result equal to what
 * the last step produced; and, for blocks that paused for no tools, the credits charged equal to the
 * token usage recorded (a flow block's usage is its child's, charged in the child's own stream). Returns the first divergence, or null. A run whose data was erased replays
 * without the content checks (its result and outputs read as erased); its erasure must follow its end.
 */
export function replayRun(input: RunReplayInput): Divergence | null {
  let state: ExecutionState = execution.initialState();
  let history = emptyRunHistory();
  const open = new Map<string, number>();
  const done = new Set<string>();
  const charged = new Map<string, number>();
  const used = new Map<string, number>();
  const paused = new Set<string>();
  // A flow block's tokens are its child's, charged in the child's stream (whose own replay checks them).
  const chargedElsewhere = new Set<string>();
  let claimedSinceStart = false;
  const erased = input.events.some(({ event }) => event.type === 'RunDataErased');
  const first = input.events[0];
  if (first && first.event.type !== 'ExecutionRequested') return { index: 0, eventType: first.event.type, reason: 'a run begins with ExecutionRequested' };

  for (const [index, { event, occurredAt }] of input.events.entries()) {
    const diverged = (reason: string): Divergence => ({ index, eventType: event.type, reason });
    try {
      if (event.type === 'ExecutionResumed') {
        if (state.status !== 'paused' || !state.pause) return diverged('a resume without a pause before it');
        const pause = state.pause;
        // An erased pause's calls read as none: its ids are not there to pair with the resume's.
        const answersCalls = erased || same(event.data.toolCallIds, pause.toolCalls.map((c) => c.id));
        if (event.data.blockName !== pause.blockName || event.data.iterationsUsed !== pause.iterationsUsed || !answersCalls) {
          return diverged(`the resume does not answer the pause of '${pause.blockName}' (its block, iteration or tool call ids differ)`);
        }
      } else if (event.type === 'ExecutionRerunStarted') {
        if (state.status === 'none') return diverged('a rerun link before the run');
      } else if (event.type === 'RunDataErased') {
        if (state.status !== 'completed' && state.status !== 'failed') return diverged('an erasure before the run ended');
      } else if (event.type === 'ApprovalDecided') {
        if (state.status !== 'waiting' || state.waiting?.blockName !== event.data.blockName) return diverged(`a decision of '${event.data.blockName}' without an approval waiting for it`);
      } else if (event.type === 'ExecutionFailed' && event.data.reason === 'cancelled' && (state.status === 'paused' || state.status === 'waiting')) {
        // An operator ended a run nobody was working on (the Cancel command): legal where a Record is not.
      } else {
        execution.decide({ type: 'Record', event }, state);
      }
    } catch (error) {
      return diverged(error instanceof ApiError ? error.message : String(error));
    }

    if (event.type === 'JobClaimed') claimedSinceStart = true;
    if (event.type === 'ExecutionStepStarted' || event.type === 'ExecutionStepCompleted') {
      const key = `${event.data.stepIndex}/${event.data.blockId}/${event.data.iteration ?? '-'}`;
      // A completion may tell its start (joinedStepStarts.ts): the start is checked first, as if it came just before.
      if (event.type === 'ExecutionStepStarted' || event.data.started !== undefined) {
        if (done.has(key)) return diverged(`block '${event.data.blockName}' started again after it completed`);
        if (open.has(key) && !claimedSinceStart) return diverged(`block '${event.data.blockName}' started twice without a job takeover between`);
        open.set(key, index);
      }
      if (event.type === 'ExecutionStepCompleted') {
        if (!open.has(key)) return diverged(`block '${event.data.blockName}' completed without having started`);
        if (done.has(key)) return diverged(`block '${event.data.blockName}' completed twice`);
        open.delete(key);
        done.add(key);
        used.set(event.data.blockName, (used.get(event.data.blockName) ?? 0) + (event.data.usage?.totalTokens ?? 0));
      }
      claimedSinceStart = false;
    }
    // A failed block's tokens are charged too: they must add up to its attempts'.
    if (event.type === 'ExecutionStepFailed') used.set(event.data.blockName, (used.get(event.data.blockName) ?? 0) + (event.data.usage?.totalTokens ?? 0));
    if (event.type === 'ExecutionPausedForToolCalls') paused.add(event.data.blockName);
    if (event.type === 'SubflowStarted') chargedElsewhere.add(event.data.blockName);
    if (event.type === 'CreditsConsumed') charged.set(event.data.blockName, (charged.get(event.data.blockName) ?? 0) + event.data.tokens);
    if (event.type === 'ExecutionCompleted' && input.steps) {
      const last = input.steps.length - 1;
      const expected = resultObject(outputOfStep(evolveRunHistory(history, { event, occurredAt }), input.steps[last]!, last));
      if (!erased && !same(expected, event.data.result)) return diverged('the recorded result is not what the last step produced');
      for (const [block, tokens] of used) {
        if (!paused.has(block) && !chargedElsewhere.has(block) && (charged.get(block) ?? 0) !== tokens) return diverged(`block '${block}' used ${tokens} tokens but was charged ${charged.get(block) ?? 0}`);
      }
    }
    state = execution.evolve(state, event);
    history = evolveRunHistory(history, { event, occurredAt });
  }
  return null;
}
