import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { runTrial } from '../../src/testing/trialRun.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/** A run whose id leaves the process before its outcome is in the log durably first: a database crash cannot lose it. */
describe('a run named before it ends', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    // The block is slow on purpose; what is checked is when its run's id is told, not the sandbox's time limit,
    // which a loaded machine (load 7) made the default 1 s block fail.
    t = await createTestRuntime('durable_start', { SEQFLOW_CODE_TIMEOUT_MS: '30000' });
    await seedProject(t.runtime, { slow: [{ block: { name: 'wait', processor_type: 'code', code: 'let x = 0; for (let i = 0; i < 2e6; i++) x += i; return { x };' } }] });
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("tells run_flow's caller the trial's id only once its request was appended durably", async () => {
    const appends: { streamId: string; types: string[]; durability: string }[] = [];
    const store = t.runtime.execution.eventStore;
    const recording: EventStore = { ...store, append: (streamId, events, expected, options) => (appends.push({ streamId, types: events.map((e) => e.type), durability: options?.durability ?? 'durable' }), store.append(streamId, events, expected, options)) };
    const flowId = (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'slow').executeTakeFirstOrThrow()).id;
    let atStart: typeof appends = [];
    let told: string | undefined;
    const outcome = await runTrial(
      { ...t.runtime.execution, eventStore: recording },
      {},
      { flowId, message: 'm', parameters: {}, attachments: [], target: 'production', onStarted: (id) => ((told = id), (atStart = appends.filter((a) => a.streamId === `execution-${id}`))) },
      testPrincipal,
    );
    expect(outcome.status).toBe('completed');
    expect(told).toBeDefined();
    expect(atStart[0]).toMatchObject({ types: expect.arrayContaining(['ExecutionRequested']), durability: 'durable' });
  });
});
