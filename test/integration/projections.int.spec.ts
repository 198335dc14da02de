import { setRetention } from '../../src/retention/retentionSettings.ts';
import { addSchedule, changeSchedule } from '../../src/schedules/scheduleCommands.ts';
import { createScheduleSweep } from '../../src/schedules/scheduleSweep.ts';
import { eraseRunData } from '../../src/execution/eraseRunData.ts';
import { startBacktest } from '../../src/backtests/backtestRunner.ts';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/commands/apiKeyCommands.ts';
import { addBlock, createFlow, removeBlock, setBlockLoop, setBlockOutputSchema, updateBlock } from '../../src/authoring/flowAuthoring.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { addTestCase, removeTestCase, updateTestCase } from '../../src/testing/testCases.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { importFlow, publishVersion } from '../../src/commands/flowCommands.ts';
import { addMember, createOrganization, grantCredits } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { decodeEvent } from '../../src/domain/domainEvent.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { acceptJob, prepareExecution } from '../../src/execution/flowEngine.ts';
import { decideApproval } from '../../src/execution/decideApproval.ts';
import { continueExecution } from '../../src/execution/continueExecution.ts';
import { allProjections } from '../../src/projections/allProjections.ts';

import { createProjectionRunner } from '../../src/projections/projectionRunner.ts';
import { type ReadModels, readModelTables } from '../../src/projections/readModelSchema.ts';
import { createSupervisor } from '../../src/supervision/supervisor.ts';
import { rebuildReadModels, verifyReadModels } from '../../src/projections/readModelVerification.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flowFile = (slug: string, blocks: number) => ({
  slug,
  name: `Flow ${slug}`,
  steps: Array.from({ length: blocks }, (_, i) =>
    i % 3 === 1
      ? { parallel: [{ name: `p${i}a`, processor_type: 'passthrough' }, { name: `p${i}b`, processor_type: 'code', code: 'return 1;' }] }
      : { block: { name: `b${i}`, processor_type: 'llm', prompt: `Step ${i}: {{message}}`, model: 'gpt-4o-mini', output_schema: { type: 'object', properties: { x: { type: 'string' } } } } },
  ),
});

/** Every read-model row, in a stable order: what a rebuild must reproduce exactly. */
async function snapshot(t: TestRuntime) {
  const out: Record<string, unknown[]> = {};
  for (const table of readModelTables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(t.runtime.db);
    out[table] = rows;
  }
  return out;
}

/** Tables that are not read models: the log itself, migrations, checkpoints and claim leases (state of workers, not of the log). */
const NOT_READ_MODELS = ['seqflow_events', 'seqflow_streams', 'seqflow_eventlog_migration', 'seqflow_eventlog_migration_lock', 'seqflow_readmodel_migration', 'seqflow_readmodel_migration_lock', 'projection_checkpoints', 'reactor_checkpoints', 'job_leases', 'delivery_leases', 'runner_leases', 'projection_leases', 'oauth_store', 'oauth_keys', 'run_data_keys'];

describe('projections', () => {
  let t: TestRuntime;
  const readModelDeps = () => ({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, databaseUrl: t.runtime.databaseUrl });
  let model: ScriptedModelServer;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('projections', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  /** Jobs that completed (paying for a model call) and failed, and a delivery with a finished attempt: the rows of jobs, credits and deliveries. */
  async function runJobsAndDeliveries(org: string) {
    const deps = t.runtime.commands;
    await grantCredits(deps, { organizationSlug: org, tokens: 10_000 }, testPrincipal);
    const steps = [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }];
    const imported = await importFlow(deps, { organizationSlug: org, projectSlug: 'web', file: { slug: 'asker', name: 'Asker', steps }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    const version = await t.runtime.db.selectFrom('flows').innerJoin('flow_versions', 'flow_versions.flow_id', 'flows.id').select(['flows.organization_id', 'flows.project_id', 'flow_versions.id as version_id']).where('flows.id', '=', imported.flowId).executeTakeFirstOrThrow();
    for (const answer of [{ content: 'fine' }, { status: 401 }]) {
      model.script(answer);
      const executionId = randomUUID();
      const principal = { kind: 'system' as const, id: 'test' };
      await acceptJob(t.runtime.execution, {
        executionId, flowId: imported.flowId, versionId: version.version_id, versionNumber: 1, organizationId: version.organization_id, projectId: version.project_id, steps: steps as never, message: 'hi', parameters: {}, attachments: [],
        tools: undefined, mode: 'async', apiKeyId: null, principal, callback: { url: 'https://hooks.example/in', events: ['flow.completed', 'flow.failed'] },
      });
      await continueExecution(t.runtime.execution, { executionId, worker: 'w', claim: 1, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
      const deliveryId = randomUUID();
      await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: version.organization_id, executionId, flowId: imported.flowId, event: 'flow.completed', url: 'https://hooks.example/in', body: '{}', truncated: false } } }, testPrincipal);
      await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'StartAttempt', data: { now: new Date().toISOString() } }, testPrincipal);
      await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'FinishAttempt', data: { attempt: 1, start: 1, result: { kind: 'response', status: 503 }, errorExcerpt: 'busy', endedAt: new Date().toISOString(), durationMs: 5, secretVersions: [1] } }, testPrincipal);
    }
    return imported.flowId;
  }

  it('rebuilds every read model from the log into exactly the rows it had', async () => {
    const deps = t.runtime.commands;
    for (const org of ['alpha', 'beta', 'gamma']) {
      await createOrganization(deps, { slug: org, name: `Org ${org}` }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-owner`, role: 'owner' }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-dev`, role: 'member' }, testPrincipal);
      await addMember(deps, { organizationSlug: org, userSubject: `${org}-dev`, role: 'admin' }, testPrincipal);
      for (const project of ['web', 'api']) {
        await createProject(deps, { organizationSlug: org, slug: project, name: project }, testPrincipal);
        const key = await createApiKey(deps, { organizationSlug: org, projectSlug: project, environment: 'live' }, testPrincipal);
        await createApiKey(deps, { organizationSlug: org, projectSlug: project, environment: 'test' }, testPrincipal);
        await revokeApiKey(deps, { keyId: key.keyId }, testPrincipal);
        const first = await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('triage', 4), production: true }, testPrincipal);
        await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('triage', 6) }, testPrincipal);
        await publishVersion(deps, { flowId: first.flowId, note: 'second' }, testPrincipal);
        await importFlow(deps, { organizationSlug: org, projectSlug: project, file: flowFile('summary', 2), publish: true }, testPrincipal);
      }
    }
    const asker = await runJobsAndDeliveries('alpha');
    // A backtest of those jobs: its row, its pairs, and the runs of mode backtest.
    await t.runtime.projections.catchUp();
    model.script({ content: 'fine' }, { content: 'fine' });
    const backtest = await startBacktest(t.runtime.execution, {}, { flowId: asker, version: 1, selection: { kind: 'last', count: 2 }, concurrency: 1 }, testPrincipal);
    expect((await backtest.run()).summary).toMatchObject({ total: 2, same: 1, different: 1 });
    // A flow edited block by block: every kind of draft edit reaches the read models.
    const web = (await createProject(deps, { organizationSlug: 'alpha', slug: 'edits', name: 'Edits' }, testPrincipal)).id;
    const built = await createFlow(deps, {}, { projectId: web, name: 'Built', slug: 'built' }, testPrincipal);
    const a = await addBlock(deps, {}, { flowId: built.flowId, name: 'a', processor_type: 'llm', prompt: 'A' }, testPrincipal);
    const b = await addBlock(deps, {}, { flowId: built.flowId, name: 'b', processor_type: 'passthrough', targetId: a.blockId, direction: 'bottom' }, testPrincipal);
    const c = await addBlock(deps, {}, { flowId: built.flowId, name: 'c', processor_type: 'passthrough', targetId: a.blockId, direction: 'right' }, testPrincipal);
    await updateBlock(deps, {}, { flowId: built.flowId, blockId: a.blockId, changes: { model: 'gpt-4o' } }, testPrincipal);
    await setBlockOutputSchema(deps, {}, { flowId: built.flowId, blockId: a.blockId, schema: { type: 'object', properties: { x: { type: 'string' } } } }, testPrincipal);
    await setBlockLoop(deps, {}, { flowId: built.flowId, blockId: c.blockId, over: 'previous_output.a' }, testPrincipal);
    await removeBlock(deps, {}, { flowId: built.flowId, blockId: b.blockId }, testPrincipal);
    const kept = await addTestCase(deps, {}, { flowId: built.flowId, definition: { name: 'kept', input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 10 }] } }, testPrincipal);
    await updateTestCase(deps, {}, { testCaseId: kept.testCaseId, definition: { name: 'kept, renamed', input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 20 }] } }, testPrincipal);
    const dropped = await addTestCase(deps, {}, { flowId: built.flowId, definition: { name: 'dropped', input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 10 }] } }, testPrincipal);
    await removeTestCase(deps, {}, { testCaseId: dropped.testCaseId }, testPrincipal);
    // A test run (its own run, and its test run's stream).
    const tiny = await createFlow(deps, {}, { projectId: web, name: 'Tiny', slug: 'tiny' }, testPrincipal);
    await addBlock(deps, {}, { flowId: tiny.flowId, name: 'one', processor_type: 'code', code: 'return { one: 1 };' }, testPrincipal);
    const tinyCase = await addTestCase(deps, {}, { flowId: tiny.flowId, definition: { name: 'one', input: { message: 'm' }, assertions: [{ type: 'path_equals', path: 'one', value: 1 }] } }, testPrincipal);
    expect((await runTestCase(t.runtime.execution, {}, { testCaseId: tinyCase.testCaseId, draft: true }, testPrincipal)).passed).toBe(true);
    // An approval: asked by a sync run and decided by a member (its row; the run a job row that no longer waits).
    const gate = await importFlow(deps, { organizationSlug: 'alpha', projectSlug: 'web', file: { slug: 'gate', name: 'Gate', steps: [{ block: { name: 'ok', processor_type: 'approval', processor_config: { approval: { text: 'Go {{message}}?', approvers: { roles: ['owner'] } } } } }] }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    const gateVersion = await t.runtime.db.selectFrom('flows').innerJoin('flow_versions', 'flow_versions.flow_id', 'flows.id').select(['flows.organization_id', 'flows.project_id', 'flow_versions.id as version_id']).where('flows.id', '=', gate.flowId).executeTakeFirstOrThrow();
    const waitingRun = randomUUID();
    const prepared = await prepareExecution(t.runtime.execution, {
      executionId: waitingRun, flowId: gate.flowId, versionId: gateVersion.version_id, versionNumber: 1, organizationId: gateVersion.organization_id, projectId: gateVersion.project_id,
      steps: await t.runtime.flows.versionSteps(gateVersion.version_id), message: 'now', parameters: {}, attachments: [], tools: undefined, mode: 'sync', apiKeyId: null, principal: testPrincipal.principal,
    });
    expect((await prepared.start()).status).toBe('waiting');
    await decideApproval(deps, { executionId: waitingRun, stepId: 'ok', flowId: gate.flowId, decision: 'approve', comment: 'go', decider: { subject: 'alpha-owner', role: 'owner' } }, testPrincipal);
    // Retention periods and an erased job: their rows, and the erasure's marks, rebuild too.
    const alpha = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'alpha').executeTakeFirstOrThrow()).id;
    await setRetention(deps, { organizationId: alpha, projectId: null, runDays: 30 }, testPrincipal);
    await setRetention(deps, { organizationId: alpha, projectId: web, runDays: 7 }, testPrincipal);
    // Schedules: one fired (its job a run with a schedule), one missed and skipped, one paused, one removed.
    const managing = { db: t.runtime.db, commands: deps, guard: t.runtime.execution.guard, callbacks: { plainHttpInAllowedRanges: false } };
    const scheduleOf = (missed: string) => addSchedule(managing, { flowId: tiny.flowId, cron: '*/5 * * * *', input: { message: 'on time' }, missed }, testPrincipal);
    await t.runtime.projections.catchUp();
    const [fired, skipped, paused, removed] = [await scheduleOf('run'), await scheduleOf('skip'), await scheduleOf('run'), await scheduleOf('run')];
    await changeSchedule(managing, paused.scheduleId, 'pause', testPrincipal);
    await changeSchedule(managing, removed.scheduleId, 'remove', testPrincipal);
    await t.runtime.projections.catchUp();
    const sweep = createScheduleSweep({ db: t.runtime.db, commands: deps, runs: t.runtime.runs, logger: t.runtime.logger, intervalMs: 1000, rules: { missedAfterMs: 10 * 60_000, maxCatchUp: 3 } });
    const inAnHour = new Date(Date.now() + 60 * 60_000);
    expect(await sweep.sweepOnce(inAnHour)).toBeGreaterThan(0);
    expect((await t.runtime.eventStore.readStream(`schedule-${skipped.scheduleId}`)).map((e) => e.type)).toContain('ScheduleFiringsSkipped');
    expect((await t.runtime.eventStore.readStream(`schedule-${fired.scheduleId}`)).map((e) => e.type)).toContain('ScheduleFired');
    await t.runtime.projections.catchUp();
    const erasedJob = (await t.runtime.db.selectFrom('jobs').select('execution_id').where('status', '=', 'completed').executeTakeFirstOrThrow()).execution_id;
    await eraseRunData({ ...deps, runDataKeys: t.runtime.runDataKeys }, { executionId: erasedJob, reason: 'a rebuild keeps erasures' }, testPrincipal);
    await t.runtime.projections.catchUp();
    const before = await snapshot(t);
    expect(before.jobs!.find((j) => (j as { execution_id: string }).execution_id === erasedJob)).toMatchObject({ result: null, data_erased_at: expect.any(Date) });
    // Every read model has rows to compare, and every table of the database that is a read model is in the comparison.
    for (const table of readModelTables) expect(before[table]!.length, table).toBeGreaterThan(0);
    const { rows: tables } = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`.execute(t.runtime.db);
    expect(tables.map((r) => r.table_name).filter((name) => !NOT_READ_MODELS.includes(name)).sort()).toEqual([...readModelTables].sort());
    expect(before.test_cases!.map((row) => (row as { name: string }).name).sort()).toEqual(['kept, renamed', 'one']);
    expect(before.test_runs!.map((row) => (row as { passed: boolean }).passed)).toEqual([true]);
    expect(before.jobs!.map((j) => (j as { status: string }).status).sort()).toEqual(['completed', 'failed', 'running']);
    expect(before.approvals!.map((a) => (a as { status: string; decided_by: string }).decided_by)).toEqual(['alpha-owner']);
    expect(before.credit_ledger!.length).toBeGreaterThan(1);
    expect(before.organizations).toHaveLength(3);
    expect(before.members).toHaveLength(6);
    expect(before.projects).toHaveLength(7);
    expect(before.api_keys).toHaveLength(12);
    expect(before.api_keys!.filter((k) => (k as { revoked_at: Date | null }).revoked_at !== null)).toHaveLength(6);
    expect(before.flows).toHaveLength(16); // and the job runs' flow, the one edited block by block, the tested one, the approval's
    expect(before.flow_versions).toHaveLength(20);
    expect(before.flow_blocks!.filter((row) => (row as { flow_id: string }).flow_id === built.flowId).map((row) => [(row as { name: string }).name, (row as { step_kind: string }).step_kind]).sort()).toEqual([['a', 'block'], ['c', 'loop']]);
    expect(before.flow_blocks!.length).toBeGreaterThan(0);

    // `projections verify` rebuilds into a shadow and finds every table the same...
    const verified = await verifyReadModels(readModelDeps());
    expect(verified.ok).toBe(true);
    expect(verified.tables.map((table) => table.table).sort()).toEqual([...readModelTables].sort());
    // ...and catches one row altered by SQL, naming the table and the row.
    await sql`UPDATE members SET role = 'owner' WHERE user_subject = 'beta-dev'`.execute(t.runtime.db);
    const caught = await verifyReadModels(readModelDeps());
    expect(caught.ok).toBe(false);
    expect(caught.tables.filter((table) => table.liveHash !== table.shadowHash)).toEqual([
      expect.objectContaining({ table: 'members', onlyLive: [expect.stringContaining('beta-dev,owner')], onlyShadow: [expect.stringContaining('beta-dev,admin')] }),
    ]);
    // A rebuild swaps a fresh copy in: the rows the log says, the altered one put right.
    await rebuildReadModels(readModelDeps());
    expect(await snapshot(t)).toEqual(before);
    const { rows: leftovers } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name LIKE 'seqflow_shadow_%'`.execute(t.runtime.db);
    expect(leftovers[0]!.n).toBe(0);
  });

  it('leaves the same rows when an event is applied twice', async () => {
    const events = await t.runtime.eventStore.readAll(0, 10_000);
    const before = await snapshot(t);
    await t.runtime.db.transaction().execute(async (trx) => {
      for (const recorded of events) {
        const event = decodeEvent(recorded.type, recorded.schemaVersion, recorded.data);
        for (const projection of allProjections) {
          if (!(projection.handles as readonly string[]).includes(recorded.type)) continue;
          // Read with readAll: opened already.
          await projection.apply(trx, event, { recorded, occurredAt: recorded.metadata.occurredAt, open: async () => event });
        }
      }
    });
    expect(await snapshot(t)).toEqual(before);
    // And a whole log's worth at once, as a batch applies it, for the projections that take batches.
    await t.runtime.db.transaction().execute(async (trx) => {
      for (const projection of allProjections.filter((p) => p.applyAll)) {
        const mine = events.filter((recorded) => (projection.handles as readonly string[]).includes(recorded.type));
        await projection.applyAll!(
          trx,
          mine.map((recorded) => {
            const event = decodeEvent(recorded.type, recorded.schemaVersion, recorded.data);
            return { event, context: { recorded, occurredAt: recorded.metadata.occurredAt, open: async () => event } };
          }),
        );
      }
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it('lets a reader wait until its own write is projected (read-your-writes)', async () => {
    await t.runtime.projections.start();
    try {
      const created = await createOrganization(t.runtime.commands, { slug: 'fresh', name: 'Fresh' }, testPrincipal);
      await t.runtime.projections.waitForPosition(created.position, 5000);
      const row = await t.runtime.db.selectFrom('organizations').selectAll().where('slug', '=', 'fresh').executeTakeFirst();
      expect(row?.id).toBe(created.id);
    } finally {
      await t.runtime.projections.stop();
    }
  });

  it('times out with PROJECTION_TIMEOUT when the read models cannot reach a position', async () => {
    const head = await t.runtime.eventStore.headPosition();
    await expect(t.runtime.projections.waitForPosition(head + 1_000_000, 100)).rejects.toMatchObject({ code: 'PROJECTION_TIMEOUT' });
  });

  it('keeps the rows right when two runners (two processes) project the same log at once', async () => {
    const second = createProjectionRunner({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, supervisor: createSupervisor({ logger: t.runtime.logger }) });
    await t.runtime.projections.start();
    await second.start();
    try {
      const positions = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createOrganization(t.runtime.commands, { slug: `race-${i}`, name: `Race ${i}` }, testPrincipal)),
      );
      await t.runtime.projections.waitForPosition(Math.max(...positions.map((p) => p.position)), 10_000);
      const rows = await t.runtime.db.selectFrom('organizations').select('slug').where('slug', 'like', 'race-%').execute();
      expect(rows).toHaveLength(20);
    } finally {
      await second.stop();
      await t.runtime.projections.stop();
    }
    const before = await snapshot(t);
    await rebuildReadModels(readModelDeps());
    expect(await snapshot(t)).toEqual(before);
  });

  it('reports how far each projection is behind the head', async () => {
    await createOrganization(t.runtime.commands, { slug: 'lagging', name: 'Lagging' }, testPrincipal);
    const lagging = await t.runtime.projections.status();
    expect(lagging.every((p) => p.behind > 0)).toBe(true);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.projections.status()).map((p) => p.behind)).toEqual(allProjections.map(() => 0));
  });
});

// Type-level check that the snapshot covers every read-model table the schema declares.
const _allTablesCovered: readonly (keyof ReadModels)[] = readModelTables;
