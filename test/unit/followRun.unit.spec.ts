import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { type ExecutionEvent, executionStream } from '../../src/domain/execution/executionEvents.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { createExecutionUpdates } from '../../src/execution/executionUpdates.ts';
import { followRun } from '../../src/runs/followRun.ts';
import { createMemoryEventStore } from '../simulation/memoryEventStore.ts';

const executionId = 'e';
const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 2, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null },
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
