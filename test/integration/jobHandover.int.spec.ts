import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execution } from '../../src/domain/execution/execution.ts';
import { decodeRecorded } from '../../src/eventstore/decodeRecorded.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createExecutionUpdates } from '../../src/execution/executionUpdates.ts';
import { createExecutionRecorder } from '../../src/execution/executionRecorder.ts';
import { createLeases } from '../../src/leases/leases.ts';
import { runClaimedJob } from '../../src/workers/jobRun.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

describe('a job accepted here and taken over elsewhere', () => {
  let t: TestRuntime;
  let flow: Awaited<ReturnType<TestRuntime['runtime']['flows']['findExecutableFlow']>>;

  beforeAll(async () => {
    t = await createTestRuntime('job_handover');
    await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'echo' }, project.id);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is not taken back by the process that accepted it once another worker holds its lease', async () => {
    // A runner listens here, so the accepted job is kept in this process for its first claim.
    const stopListening = t.runtime.execution.updates.onJobAccepted(() => undefined);
    const executionId = randomUUID();
    try {
      await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: null });
    } finally {
      stopListening();
    }
    const here = createLeases(t.runtime.db, { kind: 'job', owner: 'worker-here', leaseMs: 60_000 });
    const job = (await here.claimById(executionId))!;
    // Meanwhile (this worker paused past its lease) another worker took the job over and claimed it in the log.
    await t.runtime.db.updateTable('job_leases').set({ owner: 'worker-elsewhere', claims: 2 }).where('execution_id', '=', executionId).execute();
    const loaded = await t.runtime.eventStore.readStream(`execution-${executionId}`);
    expect(loaded).toHaveLength(1);
    const state = execution.evolve(execution.initialState(), decodeRecorded(loaded[0]!) as never);
    const elsewhere = createExecutionRecorder(t.runtime.execution, executionId, { principal: { kind: 'system', id: 'job-runner:worker-elsewhere' } }, { state, revision: 0 });
    await elsewhere.record({ type: 'JobClaimed', data: { executionId, worker: 'worker-elsewhere', claim: 2 } });

    await runClaimedJob({ engine: t.runtime.execution, leases: here, logger: t.runtime.logger, worker: 'worker-here', leaseMs: 60_000, maxClaims: 5 }, job);
    const types = (await t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e) => `${e.type}${e.type === 'JobClaimed' ? `:${(e.data as { worker: string }).worker}` : ''}`);
    expect(types).toEqual(['ExecutionRequested', 'JobClaimed:worker-elsewhere']);
  });

  it('keeps an accepted job in the process only where a runner listens', () => {
    const updates = createExecutionUpdates();
    const accepted = { event: { type: 'ExecutionRequested', data: {} }, metadata: {} } as never;
    updates.jobAccepted('j1', accepted);
    expect(updates.takeAcceptedJob('j1')).toBeUndefined();
    const stop = updates.onJobAccepted(() => undefined);
    updates.jobAccepted('j2', accepted);
    stop();
    expect(updates.takeAcceptedJob('j2')).toBe(accepted);
  });
});
