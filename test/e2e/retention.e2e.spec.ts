import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { createRetentionSweep } from '../../src/retention/retentionSweep.ts';
import { retentionOf, setRetention } from '../../src/retention/retentionSettings.ts';
import { tablesHolding } from '../support/plaintextScan.ts';
import { runCli } from '../support/runProcess.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Issue 39 point 1: an organization's (or a project's) retention period, after which a worker's
 * sweep erases the personal data of the runs that ended before it, as an erasure asked for would.
 */
describe('retention periods for runs', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let organizationId: string;
  let projectId: string;
  let sweep: ReturnType<typeof createRetentionSweep>;

  const execute = async (text: string) => {
    const answer = await fetch(`${base}/seq/acme/web/pipeline/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: text, parameters: { note: text } }) });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { executionId: string }).executionId;
  };
  const endedAt = async (executionId: string) => (await t.runtime.db.selectFrom('runs').select('ended_at').where('execution_id', '=', executionId).executeTakeFirstOrThrow()).ended_at!;
  const isErased = async (executionId: string) => (await t.runtime.eventStore.readStream(executionStream(executionId))).some((e) => e.type === 'RunDataErased');

  beforeAll(async () => {
    t = await createTestRuntime('retention');
    key = await seedProject(t.runtime, { pipeline: [{ block: { name: 'first', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    ({ organization_id: organizationId, id: projectId } = await t.runtime.db.selectFrom('projects').select(['organization_id', 'id']).where('slug', '=', 'web').executeTakeFirstOrThrow());
    ({ app, base } = await serveApi(t.runtime));
    sweep = createRetentionSweep({ db: t.runtime.db, commands: t.runtime.commands, runDataKeys: t.runtime.runDataKeys, readModelsCurrent: t.runtime.readModelsCurrent, logger: t.runtime.logger, intervalMs: 60_000 });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('keeps runs while no period is set, erases them once their organization’s period is over, and a project’s period applies in its place', async () => {
    const kept = await execute(`kept-${randomUUID()}`);
    await t.runtime.projections.catchUp();
    const ended = await endedAt(kept);
    expect(await sweep.sweepOnce(new Date(ended.getTime() + 10_000 * DAY))).toBe(0);

    await setRetention(t.runtime.commands, { organizationId, projectId: null, runDays: 30 }, testPrincipal);
    await t.runtime.projections.catchUp();
    expect(await sweep.sweepOnce(new Date(ended.getTime() + 29 * DAY))).toBe(0);
    expect(await sweep.sweepOnce(new Date(ended.getTime() + 30 * DAY + 1000))).toBeGreaterThanOrEqual(1);
    expect(await isErased(kept)).toBe(true);
    expect((await t.runtime.eventStore.readStream(executionStream(kept))).at(-1)).toMatchObject({
      type: 'RunDataErased',
      data: { trigger: 'retention', reason: 'its retention period (30 days) ran out' },
      metadata: { principal: { kind: 'system', id: 'retention' } },
    });

    // The project keeps its runs 7 days, the organization 30: the project's applies.
    await setRetention(t.runtime.commands, { organizationId, projectId, runDays: 7 }, testPrincipal);
    await t.runtime.projections.catchUp();
    expect(await retentionOf(t.runtime.db, organizationId)).toMatchObject({ runDays: 30, projects: [{ projectId, slug: 'web', runDays: 7, appliedRunDays: 7 }] });
    const short = await execute(`short-${randomUUID()}`);
    await t.runtime.projections.catchUp();
    expect(await sweep.sweepOnce(new Date((await endedAt(short)).getTime() + 7 * DAY + 1000))).toBe(1);
    expect(await isErased(short)).toBe(true);
    await setRetention(t.runtime.commands, { organizationId, projectId, runDays: null }, testPrincipal);
    await t.runtime.projections.catchUp();
  });

  it("keeps to the database's clock: a worker whose own clock runs three days ahead erases nothing early (issue 60 point 6)", async () => {
    await setRetention(t.runtime.commands, { organizationId, projectId, runDays: 2 }, testPrincipal);
    await t.runtime.projections.catchUp();
    const fresh = await execute(`fresh-${randomUUID()}`);
    await t.runtime.projections.catchUp();
    const ahead = createRetentionSweep({ db: t.runtime.db, commands: { ...t.runtime.commands, now: () => new Date(Date.now() + 3 * DAY) }, runDataKeys: t.runtime.runDataKeys, readModelsCurrent: t.runtime.readModelsCurrent, logger: t.runtime.logger, intervalMs: 60_000 });
    await ahead.sweepOnce();
    expect(await isErased(fresh)).toBe(false);
    await setRetention(t.runtime.commands, { organizationId, projectId, runDays: null }, testPrincipal);
    await t.runtime.projections.catchUp();
  });

  it('sets and shows periods from the CLI, refusing a period it cannot read', async () => {
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
    const set = await runCli(['org', 'retention', '--org', 'acme', '--runs', '90d'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ organizationId, runDays: 90, projects: [{ slug: 'web', runDays: null, appliedRunDays: 90 }] });
    const project = await runCli(['project', 'retention', '--org', 'acme', '--project', 'web', '--runs', '14d'], env);
    expect(JSON.parse(project.stdout)).toMatchObject({ projects: [{ slug: 'web', runDays: 14, appliedRunDays: 14 }] });
    const cleared = await runCli(['project', 'retention', '--org', 'acme', '--project', 'web', '--runs', 'none'], env);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ projects: [{ slug: 'web', runDays: null, appliedRunDays: 90 }] });
    const bad = await runCli(['org', 'retention', '--org', 'acme', '--runs', '30 days'], env);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('a retention period is written like 30d')]);
    await t.runtime.projections.catchUp();
  });

  it('property: at any time past or before a run’s period, the sweep erases exactly the runs due, and every verification holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3650 }), fc.array(fc.integer({ min: -120, max: 120 }).filter((m) => m !== 0), { minLength: 1, maxLength: 3 }), async (days, offsetsInMinutes) => {
        await setRetention(t.runtime.commands, { organizationId, projectId: null, runDays: days }, testPrincipal);
        await t.runtime.projections.catchUp();
        for (const minutes of offsetsInMinutes) {
          const marker = `r${randomUUID().replaceAll('-', '')}`;
          const executionId = await execute(marker);
          await t.runtime.projections.catchUp();
          // Minutes before or after the moment its period ends.
          await sweep.sweepOnce(new Date((await endedAt(executionId)).getTime() + days * DAY + minutes * 60_000));
          await t.runtime.projections.catchUp();
          expect(await isErased(executionId)).toBe(minutes > 0);
          expect(await tablesHolding(t.runtime.db, marker)).toEqual([]);
          expect((await t.runtime.eventStore.readStream(executionStream(executionId)))[0]!.data).toMatchObject(minutes > 0 ? { message: null } : { message: marker });
        }
        expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
      }),
      { numRuns: 6 },
    );
  });
});
