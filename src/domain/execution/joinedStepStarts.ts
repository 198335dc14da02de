import type { EventOf } from '../events/eventDefinition.ts';
import type { ExecutionEvent, ExecutionStepCompleted, ExecutionStepStarted } from './executionEvents.ts';

/**
 * A block's start and its completion in one event, where both go in one append: most blocks finish
 * before their start, which is only noted (executionRecorder.ts), has been appended, and a run then
 * writes, hashes, seals and stores one event per block rather than two. The completion tells the
 * start (`started`: when it was noted, the processor type, the missing placeholders; `input` beside
 * it, sealed as the start's was).
 *
 * A start is joined only when nothing but charges (CreditsConsumed: no /step frame) comes between it
 * and its completion, so a reader that splits them back (`splitJoinedStart`) sees every step event in
 * the order it happened, and /step streams the same frames as before, in the same order.
 */
type Started = EventOf<typeof ExecutionStepStarted>;
type Completed = EventOf<typeof ExecutionStepCompleted>;

/** An event with the time its command was noted or recorded (its metadata's `occurredAt`). */
export interface TimedEvent {
  event: ExecutionEvent;
  at: string;
}

const sameBlock = (a: Started['data'], b: Completed['data']) => a.stepIndex === b.stepIndex && a.blockId === b.blockId && a.iteration === b.iteration;

/** One append's events with each start joined to its completion where it can be (see above). */
export function joinStepStarts(events: readonly TimedEvent[]): TimedEvent[] {
  const joined: TimedEvent[] = [];
  // Where in `joined` the last start is, while nothing but charges has come after it.
  let lastStart: number | undefined;
  for (const timed of events) {
    const { event } = timed;
    const start = lastStart === undefined ? undefined : joined[lastStart]!;
    if (event.type === 'ExecutionStepCompleted' && start && sameBlock((start.event as Started).data, event.data)) {
      joined.splice(lastStart!, 1);
      const { processorType, missingPlaceholders, input } = (start.event as Started).data;
      joined.push({ event: { type: event.type, data: { ...event.data, started: { at: start.at, processorType, missingPlaceholders }, input } }, at: timed.at });
      lastStart = undefined;
      continue;
    }
    if (event.type !== 'CreditsConsumed') lastStart = event.type === 'ExecutionStepStarted' ? joined.length : undefined;
    joined.push(timed);
  }
  return joined;
}

/** A completion that tells its start as the two events it stands for (the start first, at the time it was noted); any other event as itself. */
export function splitJoinedStart(event: ExecutionEvent, occurredAt: string): { event: ExecutionEvent; occurredAt: string }[] {
  if (event.type !== 'ExecutionStepCompleted' || event.data.started === undefined) return [{ event, occurredAt }];
  const { started, input, ...completed } = event.data;
  const { executionId, stepIndex, blockId, blockName, iteration } = completed;
  const start: Started = { type: 'ExecutionStepStarted', data: { executionId, stepIndex, blockId, blockName, iteration, processorType: started.processorType, input, missingPlaceholders: started.missingPlaceholders } };
  return [
    { event: start, occurredAt: started.at },
    { event: { type: event.type, data: completed }, occurredAt },
  ];
}
