import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { type TimedEvent, joinStepStarts, splitJoinedStart } from '../../src/domain/execution/joinedStepStarts.ts';

const ref = (blockId: string, iteration: number | null = null) => ({ executionId: 'e', stepIndex: 0, blockId, blockName: blockId, iteration });
const started = (blockId: string, iteration: number | null = null): ExecutionEvent => ({ type: 'ExecutionStepStarted', data: { ...ref(blockId, iteration), processorType: 'passthrough', input: { message: `to ${blockId}` }, missingPlaceholders: ['x'] } });
const completed = (blockId: string, iteration: number | null = null): ExecutionEvent => ({
  type: 'ExecutionStepCompleted',
  data: { ...ref(blockId, iteration), output: `from ${blockId}`, model: null, usage: null, durationMs: 3, attempts: 1, validationErrors: [] },
});
const charged: ExecutionEvent = { type: 'CreditsConsumed', data: { executionId: 'e', organizationId: 'o', blockName: 'a', model: 'm', tokens: 5 } };
const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
const timed = (...events: ExecutionEvent[]): TimedEvent[] => events.map((event, i) => ({ event, at: at(i) }));
const types = (events: TimedEvent[]) => events.map(({ event }) => (event.type === 'ExecutionStepCompleted' && event.data.started ? 'joined' : event.type));

describe("a block's start and completion in one event", () => {
  it('given a start and its completion in one append, with charges between, writes one completion that tells the start', () => {
    const joined = joinStepStarts(timed(started('a'), charged, completed('a')));
    expect(types(joined)).toEqual(['CreditsConsumed', 'joined']);
    expect(joined[1]).toEqual({
      event: { type: 'ExecutionStepCompleted', data: { ...completed('a').data, started: { at: at(0), processorType: 'passthrough', missingPlaceholders: ['x'] }, input: { message: 'to a' } } },
      at: at(2),
    });
  });

  it('given another block between a start and its completion (a parallel step), keeps them apart, so every step event keeps its order', () => {
    expect(types(joinStepStarts(timed(started('a'), started('b'), completed('b'), completed('a'))))).toEqual(['ExecutionStepStarted', 'joined', 'ExecutionStepCompleted']);
    expect(types(joinStepStarts(timed(started('a'), completed('b'))))).toEqual(['ExecutionStepStarted', 'ExecutionStepCompleted']);
    // A loop's items are blocks of their own.
    expect(types(joinStepStarts(timed(started('a', 0), completed('a', 1))))).toEqual(['ExecutionStepStarted', 'ExecutionStepCompleted']);
  });

  it('given a completion whose start went out in an earlier append, leaves it as it is', () => {
    expect(joinStepStarts(timed(completed('a')))).toEqual(timed(completed('a')));
  });

  it('splits back into the two events it stands for, the start at the time it was noted', () => {
    const [joined] = joinStepStarts(timed(started('a'), completed('a')));
    expect(splitJoinedStart(joined!.event, joined!.at)).toEqual([
      { event: started('a'), occurredAt: at(0) },
      { event: completed('a'), occurredAt: at(1) },
    ]);
    expect(splitJoinedStart(completed('a'), at(5))).toEqual([{ event: completed('a'), occurredAt: at(5) }]);
  });
});
