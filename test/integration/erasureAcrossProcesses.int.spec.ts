import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { eraseRunData } from '../../src/execution/eraseRunData.ts';
import { continueExecution } from '../../src/execution/continueExecution.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { tablesHolding } from '../support/plaintextScan.ts';
import { until } from '../support/until.ts';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { forgetErasedKeys } from '../../src/caches/forgetErasedKeys.ts';
import { createRunDataKeys } from '../../src/security/runDataKeys.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/**
 * The projections open a run's sealed data with the key their own process made for it, without
 * asking whether another process erased the run since (projectionRunner: appliesErasures). What
 * they keep is then cleared by the erasure's event, which follows in the log: no plaintext survives.
 */
describe('a run erased by another process before this one projected it', () => {
  let t: TestRuntime;
  let other: Runtime;

  beforeAll(async () => {
    t = await createTestRuntime('erasure-processes');
    await seedProject(t.runtime, { relay: [{ block: { name: 'relay', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    other = await openRuntime(loadConfig({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_DEMO: 'false' }), pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it('leaves its job row and every other table without the run\'s data, and the poll\'s result erased', async () => {
    const flow = await t.runtime.db.selectFrom('flows').innerJoin('flow_versions', 'flow_versions.flow_id', 'flows.id').select(['flows.id', 'flows.organization_id', 'flows.project_id', 'flow_versions.id as version_id']).where('flows.slug', '=', 'relay').executeTakeFirstOrThrow();
    const marker = `pii-${randomUUID()}`;
    const executionId = randomUUID();
    const principal = { kind: 'system' as const, id: 'test' };
    const steps = [{ block: { name: 'relay', processor_type: 'passthrough' } }];
    await acceptJob(t.runtime.execution, {
      executionId, flowId: flow.id, versionId: flow.version_id, versionNumber: 1, organizationId: flow.organization_id, projectId: flow.project_id, steps: steps as never,
      message: `call me at ${marker}`, parameters: { customer: marker }, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal,
    });
    await continueExecution(t.runtime.execution, { executionId, worker: 'w', claim: 1, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
    // This process made the run's key; the other erases the run while nothing has projected it yet.
    expect(await tablesHolding(t.runtime.db, marker)).toEqual([]);
    await eraseRunData({ ...other.commands, runDataKeys: other.runDataKeys }, { executionId, reason: 'asked by the customer' }, testPrincipal);

    await t.runtime.projections.start();
    await t.runtime.projections.waitForPosition(await t.runtime.eventStore.headPosition(), 30_000);
    const job = await t.runtime.db.selectFrom('jobs').selectAll().where('execution_id', '=', executionId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'completed', result: null, data_erased_at: expect.any(Date) });
    expect(await tablesHolding(t.runtime.db, marker)).toEqual([]);
    // Both processes read the run as erased.
    for (const runtime of [t.runtime, other]) {
      const events = await runtime.eventStore.readStream(`execution-${executionId}`);
      expect(events[0]).toMatchObject({ type: 'ExecutionRequested', data: { message: null, parameters: {} } });
    }
  });

  it("makes every process forget an erased run's key through the log watch, so none seals or opens the run's data with it again (issue 60 point 4)", async () => {
    t.runtime.logWatch.start();
    await until(() => t.runtime.logWatch.live, 'the log watch to be current');
    const flow = await t.runtime.db.selectFrom('flows').innerJoin('flow_versions', 'flow_versions.flow_id', 'flows.id').select(['flows.id', 'flows.organization_id', 'flows.project_id', 'flow_versions.id as version_id']).where('flows.slug', '=', 'relay').executeTakeFirstOrThrow();
    const executionId = randomUUID();
    const principal = { kind: 'system' as const, id: 'test' };
    await acceptJob(t.runtime.execution, {
      executionId, flowId: flow.id, versionId: flow.version_id, versionNumber: 1, organizationId: flow.organization_id, projectId: flow.project_id, steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }] as never,
      message: 'hello', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal,
    });
    await continueExecution(t.runtime.execution, { executionId, worker: 'w', claim: 1, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
    expect(t.runtime.runDataKeys.madeHere(executionId)).toBeDefined();

    await eraseRunData({ ...other.commands, runDataKeys: other.runDataKeys }, { executionId, reason: 'asked by the customer' }, testPrincipal);
    await until(() => t.runtime.runDataKeys.madeHere(executionId) === undefined, "this process to forget the erased run's key");
    // A late event of the run written here now (a delivery of its end) is sealed under no key anyone keeps.
    const marker = `pii-${randomUUID()}`;
    const deliveryId = randomUUID();
    const created = { type: 'DeliveryCreated' as const, data: { deliveryId, organizationId: flow.organization_id, executionId, flowId: flow.id, event: 'flow.completed' as const, url: 'https://hooks.example/x', body: JSON.stringify({ marker }), truncated: false } };
    await t.runtime.eventStore.append(`delivery-${deliveryId}`, [{ id: randomUUID(), ...encodeEvent(created), metadata: { correlationId: executionId, causationId: null, principal, occurredAt: new Date().toISOString() } }], 'no_stream');
    for (const runtime of [t.runtime, other]) expect((await runtime.eventStore.readStream(`delivery-${deliveryId}`))[0]).toMatchObject({ data: { body: '' }, erasedFields: ['body'] });
    expect((await t.runtime.runDataKeys.forOpening([executionId], { madeHere: true })).get(executionId)).toBe('erased');
    await t.runtime.projections.catchUp();
    expect(await tablesHolding(t.runtime.db, marker)).toEqual([]);
  });

  it('trusts no kept key while the log watch is not current, and forgets them all when it restarts', () => {
    const kept = new Map<string, boolean>();
    const watcher = forgetErasedKeys({ forget: (id) => void kept.set(id, false), forgetAll: () => void kept.set('*', false) });
    expect(watcher.wants({ streamId: 'execution-e', type: 'RunDataErased', data: { executionId: 'e' }, position: 1 })).toBe(true);
    expect(watcher.wants({ streamId: 'execution-e', type: 'ExecutionCompleted', data: { executionId: 'e' }, position: 1 })).toBe(false);
    watcher.changed({ streamId: 'execution-e', type: 'RunDataErased', data: { executionId: 'e' }, position: 1 });
    watcher.reset();
    expect([...kept]).toEqual([['e', false], ['*', false]]);
    let live = true;
    const keys = createRunDataKeys(t.runtime.pool, t.runtime.masterKey, { flushedWithLog: true, trusted: () => live });
    keys.forNewRun('r');
    keys.appended('r');
    expect(keys.madeHere('r')).toBeDefined();
    live = false;
    expect(keys.madeHere('r')).toBeUndefined();
    live = true;
    keys.forgetAll();
    expect(keys.madeHere('r')).toBeUndefined();
  });
});
