import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { createExecutionRecorder } from '../../src/execution/executionRecorder.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const requested = (executionId: string): ExecutionEvent => ({
  type: 'ExecutionRequested',
  data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'sync', message: 'hi', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
});
const ref = (executionId: string) => ({ executionId, stepIndex: 0, blockId: 'b1', blockName: 'relay', iteration: null });
const stepStarted = (executionId: string): ExecutionEvent => ({ type: 'ExecutionStepStarted', data: { ...ref(executionId), processorType: 'passthrough', input: 'hi', missingPlaceholders: [] } });
const stepCompleted = (executionId: string): ExecutionEvent => ({ type: 'ExecutionStepCompleted', data: { ...ref(executionId), output: 'hi', model: null, usage: null, durationMs: 0, attempts: 1, validationErrors: [] } });
const completed = (executionId: string): ExecutionEvent => ({ type: 'ExecutionCompleted', data: { executionId, result: { text: 'hi' }, durationMs: 1 } });

describe("a run's recorder combines its appends", () => {
  let t: TestRuntime;
  /** The real store, with each append call counted per stream. */
  let store: EventStore;
  const appendCalls = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestRuntime('recorder');
    const real = t.runtime.eventStore;
    store = Object.assign(Object.create(real) as EventStore, {
      append: (...args: Parameters<EventStore['append']>) => {
        appendCalls.set(args[0], (appendCalls.get(args[0]) ?? 0) + 1);
        return real.append(...args);
      },
    });
  });
  afterAll(async () => t?.close());

  it('events noted one after the other go with the record that follows them, in one append, in order', async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal });
    await recorder.noteAndWait(requested(executionId));
    recorder.note(stepStarted(executionId));
    recorder.note(stepCompleted(executionId));
    await recorder.record(completed(executionId));

    expect(appendCalls.get(executionStream(executionId))).toBe(2);
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    // The step's start went out with its completion: one event tells both (joinedStepStarts.ts).
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepCompleted', 'ExecutionCompleted']);
    expect(events[1]!.data).toMatchObject({ started: { processorType: 'passthrough' }, input: (stepStarted(executionId).data as { input: unknown }).input });
    expect(recorder.revision()).toBe(2);
  });

  it("with a linger, the run's request goes at the end of its turn (the run is in the log before its first model call answers), and its later noted events wait for its next record and go in one append", async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal }, undefined, { lingerMs: 600_000 });
    await recorder.noteAndWait(requested(executionId));
    expect(appendCalls.get(executionStream(executionId))).toBe(1);
    recorder.note(stepStarted(executionId));
    // Later turns, as a block's own work takes: the notes still wait.
    await new Promise((r) => setImmediate(r));
    recorder.note(stepCompleted(executionId));
    await recorder.record(completed(executionId));

    expect(appendCalls.get(executionStream(executionId))).toBe(2);
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepCompleted', 'ExecutionCompleted']);
    // Noted a turn before the completion: the start keeps the time it was noted.
    expect(Date.parse((events[1]!.data as { started: { at: string } }).started.at)).toBeLessThanOrEqual(Date.parse(events[1]!.metadata.occurredAt));
  });

  it('with a linger, noted events go on their own when no record comes within it', async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal }, undefined, { lingerMs: 20 });
    await recorder.noteAndWait(requested(executionId));
    recorder.note(stepStarted(executionId));
    await until(() => appendCalls.get(executionStream(executionId)) === 2, 'the noted start to go on its own once the linger is over', 10_000);
    expect((await t.runtime.eventStore.readStream(executionStream(executionId))).map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted']);
  });

  it('a note whose append failed breaks the recorder: the next record fails with its error and nothing more is written', async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal });
    await recorder.noteAndWait(requested(executionId));
    // Another writer moves the stream on: the recorder's next append meets a revision it did not expect.
    await t.runtime.eventStore.append(executionStream(executionId), [{ id: randomUUID(), type: 'JobClaimed', schemaVersion: 1, data: { executionId, worker: 'other', claim: 1 }, metadata: { correlationId: executionId, causationId: null, principal: testPrincipal.principal, occurredAt: new Date().toISOString() } }], 0);
    recorder.note(stepStarted(executionId));
    await new Promise((r) => setImmediate(r));
    await expect(recorder.record(stepCompleted(executionId), completed(executionId))).rejects.toMatchObject({ name: expect.stringMatching(/Conflict|Concurrency|WrongExpected/i) });
    await expect(recorder.record(completed(executionId))).rejects.toBeDefined();
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'JobClaimed']);
  });

  it('after a noted event that could not be written, a later record that could be is refused too (no gap in the history)', async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal });
    await recorder.noteAndWait(requested(executionId));
    recorder.note({ type: 'ExecutionStepStarted', data: { ...ref(executionId), processorType: 'shell', input: 'hi', missingPlaceholders: [] } } as unknown as ExecutionEvent);
    await new Promise((r) => setImmediate(r));
    const failure = await recorder.record(completed(executionId)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toMatch(/processorType/);
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested']);
  });

  it('a refused record alone does not break it: its caller hears the refusal and the run still records its end', async () => {
    const executionId = randomUUID();
    const recorder = createExecutionRecorder({ eventStore: store, now: () => new Date() }, executionId, { principal: testPrincipal.principal });
    await recorder.noteAndWait(requested(executionId));
    // The run exists, so the decider refuses its request a second time.
    await expect(recorder.record(requested(executionId))).rejects.toMatchObject({ code: 'CONFLICT' });
    await recorder.record(completed(executionId));
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(events.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionCompleted']);
  });
});
