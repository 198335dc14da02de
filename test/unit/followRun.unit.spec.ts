import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { type ExecutionEvent, executionStream } from '../../src/domain/execution/executionEvents.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { createExecutionUpdates } from '../../src/execution/executionUpdates.ts';
import { followRun } from '../../src/runs/followRun.ts';
import { joinStepStarts } from '../../src/domain/execution/joinedStepStarts.ts';
import { createMemoryEventStore } from '../simulation/memoryEventStore.ts';

const executionId = 'e';
const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 2, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const block = (stepIndex: number) => ({ executionId, stepIndex, blockId: `b${stepIndex}`, blockName: `b${stepIndex}`, iteration: null });
const started = (stepIndex: number): ExecutionEvent => ({ type: 'ExecutionStepStarted', data: { ...block(stepIndex), processorType: 'passthrough', input: {}, missingPlaceholders: [] } });
const completed = (stepIndex: number): ExecutionEvent => ({
  type: 'ExecutionStepCompleted',
  data: { ...block(stepIndex), output: 'x', model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] },
});

function appendTo(store: EventStore, ...events: ExecutionEvent[]) {
  const toAppend = events.map((event) => ({ id: randomUUID(), ...encodeEvent(event), metadata: { correlationId: executionId, causationId: null, principal: { kind: 'system' as const, id: 'test' }, occurredAt: new Date(0).toISOString() } }));
  return store.append(executionStream(executionId), toAppend, 'any');
}

describe('a /step reader following a run in this process', () => {
  it("given a completion that tells its block's start, streams the start (half a revision before it), the reply's pieces, then the completion under the event's revision; a reader back after the start gets only the completion", async () => {
    const log = createMemoryEventStore();
    const [joined] = joinStepStarts([
      { event: started(0), at: new Date(0).toISOString() },
      { event: completed(0), at: new Date(1).toISOString() },
    ]);
    await appendTo(log, requested, joined!.event, { type: 'ExecutionCompleted', data: { executionId, result: { value: 'x' }, durationMs: 2 } });
    const updates = createExecutionUpdates();
    const tokens = updates.tokens.open(executionId);
    updates.tokens.publish(executionId, { stepId: 'b0', blockName: 'b0', iteration: null, delta: 'x' });
    const follow = async (afterRevision: number) => {
      const frames: { event: string; id: number | null }[] = [];
      for await (const frame of followRun({ eventStore: log, updates }, { executionId, afterRevision, flowId: 'f', blockCount: 1, tokens }, new AbortController().signal)) frames.push({ event: frame.event, id: frame.id });
      return frames;
    };
    expect(await follow(-1)).toEqual([
      { event: 'started', id: 0 },
      { event: 'step_started', id: 0.5 },
      { event: 'token', id: null },
      { event: 'step_completed', id: 1 },
      { event: 'completed', id: 2 },
    ]);
    expect(await follow(0.5)).toEqual([
      { event: 'step_completed', id: 1 },
      { event: 'completed', id: 2 },
    ]);
    expect((await follow(0)).map((f) => f.id)).toEqual([0.5, 1, 2]);
  });

  it('given the run dies while a read is out, still gives every event its last append wrote before saying it failed', async () => {
    const log = createMemoryEventStore();
    await appendTo(log, requested, started(0), completed(0));
    let dieDuringRead: (() => Promise<void>) | undefined;
    // A read that starts before the run's last append, and answers after the run died: it holds none of it.
    const reader: Pick<EventStore, 'readStream'> = {
      async readStream(streamId, options) {
        const answer = await log.readStream(streamId, options);
        const die = dieDuringRead;
        dieDuringRead = undefined;
        await die?.();
        return answer;
      },
    };
    let fail!: (error: Error) => void;
    const outcome = new Promise((_, reject) => (fail = reject));
    const updates = createExecutionUpdates();
    const frames: string[] = [];
    for await (const frame of followRun({ eventStore: reader, updates }, { executionId, afterRevision: -1, flowId: 'f', blockCount: 2, outcome }, new AbortController().signal)) {
      frames.push(frame.event);
      if (frame.event === 'step_completed') {
        dieDuringRead = async () => {
          await appendTo(log, started(1));
          updates.notify(executionId);
          fail(new Error('disk full'));
          await new Promise((resolve) => setImmediate(resolve));
        };
      }
    }
    expect(frames).toEqual(['started', 'step_started', 'step_completed', 'step_started', 'failed']);
  });
});
