import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { deliveryIdFor } from '../../src/commands/deliveryCommands.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { continueExecution } from '../../src/execution/continueExecution.ts';
import { allProjections } from '../../src/projections/allProjections.ts';
import type { Projection } from '../../src/projections/projection.ts';
import { createProjectionRunner } from '../../src/projections/projectionRunner.ts';
import type { ExecutableFlow } from '../../src/caches/flowCatalog.ts';
import { createDeliveryCreator } from '../../src/workers/deliveryCreator.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const waitFor = async <T>(probe: () => Promise<T>, ok: (value: T) => boolean, tries = 400): Promise<T> => {
  let value = await probe();
  for (let i = 0; i < tries && !ok(value); i++) {
    await new Promise((r) => setTimeout(r, 25));
    value = await probe();
  }
  expect(ok(value)).toBe(true);
  return value;
};

describe('background tasks never stall silently', () => {
  let t: TestRuntime;
  let flow: ExecutableFlow;
  let projectId: string;
  const principal = { kind: 'system' as const, id: 'test' };

  /** A /jobs run accepted with a callback, as POST /jobs would record it; `versionId` may be made up. */
  const job = async (versionId = flow.versionId) => {
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, {
      executionId, flowId: flow.flowId, versionId, versionNumber: 1, organizationId: flow.organizationId, projectId, steps: flow.steps, message: 'm', parameters: {}, attachments: [],
      tools: undefined, mode: 'async', apiKeyId: null, principal, callback: { url: 'https://93.184.216.34/hook', events: ['flow.completed', 'flow.failed'] },
    });
    return executionId;
  };

  beforeAll(async () => {
    t = await createTestRuntime('supervision', { SEQFLOW_RESTART_DELAY_MS: '20' });
    await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { ok: true };' } }] });
    await t.runtime.projections.catchUp();
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    projectId = project.id;
    flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'echo' }, projectId);
  });
  afterAll(async () => t?.close());

  // The creator knows a run's callback from its request met earlier in the log; a run it does not
  // remember (none here: it remembers 0) it reads from the run's stream. The store fails once, on
  // the creator's first read or append of a stream it writes for the run: the delivery's (both
  // cases), or the run's (read only for a run it does not remember).
  it.each([
    { runs: 'it remembers', remembered: undefined, failing: 'delivery-' },
    { runs: 'it does not remember', remembered: 0, failing: 'execution-' },
  ])('restarts the delivery creator after the store fails once: the delivery is still created (runs $runs)', async ({ remembered, failing }) => {
    let failures = 0;
    const real = t.runtime.eventStore;
    const fails = (streamId: string) => streamId.startsWith(failing) && failures++ === 0;
    const runReads: string[] = [];
    const flaky: EventStore = {
      ...real,
      readStream: (streamId, options) => {
        // The run's request (its first event); a delivery of a completed run also reads the run's end, opened, to send its result.
        if (streamId.startsWith('execution-') && options?.fromRevision === undefined) runReads.push(streamId);
        return fails(streamId) ? Promise.reject(new Error('connection lost (injected)')) : real.readStream(streamId, options);
      },
      append: (streamId, events, expected, options) => (fails(streamId) ? Promise.reject(new Error('connection lost (injected)')) : real.append(streamId, events, expected, options)),
    };
    const creator = createDeliveryCreator({ db: t.runtime.db, eventStore: flaky, commands: { ...t.runtime.commands, eventStore: flaky }, onCreated: () => undefined, rememberedRequests: remembered });
    const task = t.runtime.supervisor.supervise('delivery-creator', () => creator.start());
    try {
      const executionId = await job();
      await continueExecution(t.runtime.execution, { executionId, worker: 'w', claim: 1, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
      const created = await waitFor(() => t.runtime.eventStore.readStream(deliveryStream(deliveryIdFor(executionId, 'flow.completed'))), (events) => events.length > 0);
      expect(created[0]!.type).toBe('DeliveryCreated');
      expect(failures).toBeGreaterThan(1);
      expect(runReads.length > 0).toBe(remembered === 0);
      expect(t.runtime.supervisor.status().find((s) => s.name === 'delivery-creator')).toMatchObject({ state: 'running', restarts: 1, lastError: 'connection lost (injected)' });
    } finally {
      await task.stop();
    }
  });

  it('fails a job that keeps failing outside its steps after SEQFLOW_JOB_MAX_CLAIMS claims, instead of claiming it forever', async () => {
    await t.runtime.projections.start();
    const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 150, concurrency: 1, workerId: 'w-cap', pollMs: 20, maxClaims: 2 });
    const task = t.runtime.supervisor.supervise('job-runner', () => runner.start());
    try {
      // Its version row does not exist: every claim fails before the first step.
      const executionId = await job(randomUUID());
      const events = await waitFor(() => t.runtime.eventStore.readStream(`execution-${executionId}`), (list) => list.at(-1)?.type === 'ExecutionFailed');
      expect(events.filter((e) => e.type === 'JobClaimed')).toHaveLength(2);
      expect(events.at(-1)!.data).toMatchObject({ reason: 'error', code: 'JOB_ABANDONED', message: expect.stringContaining('claimed 2 times') });
    } finally {
      await task.stop();
      await t.runtime.projections.stop();
    }
  });

  it("keeps the job runner (and the process) up when its own bookkeeping fails after a run, logging it; the next job runs", async () => {
    await t.runtime.projections.start();
    const doomed = await job();
    // Injected in PostgreSQL itself: marking this job's lease done fails, as a lost connection would.
    await sql`CREATE FUNCTION fail_lease_done() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'lease update failed (injected)'; END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER fail_lease_done BEFORE UPDATE ON job_leases FOR EACH ROW WHEN (NEW.done_at IS NOT NULL AND NEW.execution_id = ${sql.lit(doomed)}) EXECUTE FUNCTION fail_lease_done()`.execute(t.runtime.db);
    const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 5000, concurrency: 1, workerId: 'w-bookkeeping', pollMs: 20 });
    const task = t.runtime.supervisor.supervise('job-runner', () => runner.start());
    try {
      await waitFor(() => t.runtime.eventStore.readStream(`execution-${doomed}`), (events) => events.at(-1)?.type === 'ExecutionCompleted');
      await waitFor(async () => t.logs(), (logs) => logs.includes('lease update failed (injected)'));
      const next = await job();
      await waitFor(() => t.runtime.eventStore.readStream(`execution-${next}`), (events) => events.at(-1)?.type === 'ExecutionCompleted');
      expect(t.runtime.supervisor.status().find((s) => s.name === 'job-runner')).toMatchObject({ state: 'running', restarts: 0 });
    } finally {
      await task.stop();
      await t.runtime.projections.stop();
      await sql`DROP TRIGGER fail_lease_done ON job_leases`.execute(t.runtime.db);
    }
  });

  it('stalls only the projection that cannot apply an event (shown in its status), and the others go on', async () => {
    let poisoned = true;
    const fragile: Projection = {
      name: 'fragile',
      handles: ['OrganizationCreated'],
      tables: [],
      apply: async (_trx, event) => {
        if (poisoned && event.type === 'OrganizationCreated' && event.data.slug === 'poison') throw new Error('cannot apply (injected)');
      },
    };
    const runner = createProjectionRunner({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: [...allProjections, fragile], logger: t.runtime.logger, supervisor: t.runtime.supervisor });
    await runner.catchUp();
    const poison = await createOrganization(t.runtime.commands, { slug: 'poison', name: 'Poison' }, testPrincipal);
    const after = await createOrganization(t.runtime.commands, { slug: 'after', name: 'After' }, testPrincipal);
    await runner.catchUp();
    const status = await runner.status();
    expect(status.find((s) => s.name === 'fragile')!.stalled).toMatchObject({ eventType: 'OrganizationCreated', error: 'cannot apply (injected)', since: expect.any(String) });
    expect(status.find((s) => s.name === 'fragile')!.position).toBeLessThan(poison.position);
    expect(status.find((s) => s.name === 'organizations')).toMatchObject({ stalled: null, position: expect.any(Number) });
    expect(status.find((s) => s.name === 'organizations')!.position).toBeGreaterThanOrEqual(after.position);
    expect(await t.runtime.db.selectFrom('organizations').select('slug').where('slug', 'in', ['poison', 'after']).execute()).toHaveLength(2);
    // Read-your-writes does not wait for the stalled projection.
    await runner.waitForPosition(after.position, 1000);

    // Once the event can be applied, the running reader retries it (after its backoff) and the stall clears.
    poisoned = false;
    await runner.start();
    try {
      const healed = await waitFor(() => runner.status(), (list) => list.find((s) => s.name === 'fragile')!.stalled === null);
      expect(healed.find((s) => s.name === 'fragile')!.position).toBeGreaterThanOrEqual(after.position);
    } finally {
      await runner.stop();
    }
  });

  it('applies a clean batch without a savepoint, and a batch that fails anywhere again from scratch, guarded: nothing of the failed try is kept', async () => {
    await sql`CREATE TABLE IF NOT EXISTS probe_rows (slug text NOT NULL)`.execute(t.runtime.db);
    const statements: string[] = [];
    const db = t.runtime.db.withPlugin({
      transformQuery: (args) => {
        if (args.node.kind === 'RawNode') statements.push(args.node.sqlFragments.join('?'));
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    // One projection writes a row per organization; the other cannot apply one of them.
    const writer: Projection = {
      name: 'probe-writer',
      handles: ['OrganizationCreated'],
      tables: [],
      apply: async (trx, event) => {
        if (event.type === 'OrganizationCreated') await sql`INSERT INTO probe_rows VALUES (${event.data.slug})`.execute(trx);
      },
    };
    const picky: Projection = {
      name: 'probe-picky',
      handles: ['OrganizationCreated'],
      tables: [],
      apply: async (_trx, event) => {
        if (event.type === 'OrganizationCreated' && event.data.slug === 'picky-poison') throw new Error('cannot apply (injected)');
      },
    };
    const runner = createProjectionRunner({ db, eventStore: t.runtime.eventStore, projections: [...allProjections, writer, picky], logger: t.runtime.logger, supervisor: t.runtime.supervisor });
    await runner.catchUp();
    statements.length = 0;
    await createOrganization(t.runtime.commands, { slug: 'picky-fine', name: 'Fine' }, testPrincipal);
    await runner.catchUp();
    expect(statements.filter((text) => text.includes('SAVEPOINT'))).toEqual([]);

    await createOrganization(t.runtime.commands, { slug: 'picky-poison', name: 'Poison' }, testPrincipal);
    await runner.catchUp();
    expect(statements.filter((text) => text.includes('SAVEPOINT')).length).toBeGreaterThan(0);
    expect((await runner.status()).find((s) => s.name === 'probe-picky')!.stalled).toMatchObject({ error: 'cannot apply (injected)' });
    // The writer's row for the poisoned batch was written once: its unguarded try was rolled back with the batch.
    const { rows } = await sql<{ slug: string }>`SELECT slug FROM probe_rows WHERE slug LIKE 'picky-%' ORDER BY slug`.execute(t.runtime.db);
    expect(rows.map((r) => r.slug)).toEqual(['picky-fine', 'picky-poison']);
  });

  it("applies a projection's batch at once when it takes batches, and event by event when the batch fails, so the stall names the event", async () => {
    const seen = { batches: 0, oneByOne: [] as string[] };
    const batched: Projection = {
      name: 'batched',
      handles: ['OrganizationCreated'],
      tables: [],
      apply: async (_trx, event) => {
        if (event.type !== 'OrganizationCreated') return;
        if (event.data.slug === 'poison-batch') throw new Error('cannot apply (injected)');
        seen.oneByOne.push(event.data.slug);
      },
      applyAll: async (_trx, events) => {
        seen.batches++;
        if (events.some(({ event }) => event.type === 'OrganizationCreated' && event.data.slug === 'poison-batch')) throw new Error('the batch fails (injected)');
      },
    };
    const runner = createProjectionRunner({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: [...allProjections, batched], logger: t.runtime.logger, supervisor: t.runtime.supervisor });
    await runner.catchUp();
    expect(seen.batches).toBeGreaterThan(0);
    expect(seen.oneByOne).toEqual([]);
    await createOrganization(t.runtime.commands, { slug: 'fine-batch', name: 'Fine' }, testPrincipal);
    const poison = await createOrganization(t.runtime.commands, { slug: 'poison-batch', name: 'Poison' }, testPrincipal);
    await runner.catchUp();
    const stalled = (await runner.status()).find((s) => s.name === 'batched')!;
    expect(stalled.stalled).toMatchObject({ eventType: 'OrganizationCreated', error: 'cannot apply (injected)' });
    expect(stalled.position).toBeLessThan(poison.position);
    // The fallback went event by event up to the one that fails.
    expect(seen.oneByOne).toContain('fine-batch');
  });

  it('refuses loudly an event written by a newer version of the code: that projection stalls on it, never reads it with an older schema', async () => {
    const future = { id: randomUUID(), type: 'OrganizationCreated', schemaVersion: 99, data: { organizationId: randomUUID(), slug: 'future', name: 'Future', region: 'mars' }, metadata: { correlationId: randomUUID(), causationId: null, principal, occurredAt: new Date().toISOString() } };
    await t.runtime.eventStore.append(`org-${future.data.organizationId}`, [future], 'no_stream');
    const later = await createOrganization(t.runtime.commands, { slug: 'later', name: 'Later' }, testPrincipal);
    await t.runtime.projections.catchUp();
    const status = await t.runtime.projections.status();
    expect(status.find((s) => s.name === 'organizations')!.stalled).toMatchObject({ eventType: 'OrganizationCreated', error: expect.stringContaining('version 99 is newer than this code knows') });
    expect(status.find((s) => s.name === 'credit_ledger')).toMatchObject({ stalled: null });
    expect(status.find((s) => s.name === 'credit_ledger')!.position).toBeGreaterThanOrEqual(later.position);
  });
});
