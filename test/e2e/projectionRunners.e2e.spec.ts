import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections, projectionGroups } from '../../src/projections/allProjections.ts';
import { verifyReadModels } from '../../src/projections/readModelVerification.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { type TestRuntime, createTestRuntime, seedProject, serveApi } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

const GROUPS = projectionGroups.map((g) => g.name).sort();

/**
 * The projections run as runners (groups) that worker processes share under leases: two workers
 * split them; one is killed (-9) while runs and jobs keep coming; the other takes its runners over.
 * Every insert a projection commits into `runs` and `jobs` is counted by a trigger (an insert rolled
 * back with its batch is not), so an event applied twice shows as a second insert of its row.
 */
describe('projection runners shared by worker processes', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  const workers = new Map<string, ChildProcess>();

  beforeAll(async () => {
    t = await createTestRuntime('projection_runners', { SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { said: input.message };' } }] });
    await t.runtime.projections.catchUp();
    await sql`CREATE TABLE applied (tbl text NOT NULL, id text NOT NULL)`.execute(t.runtime.db);
    await sql`CREATE FUNCTION note_applied() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO applied VALUES (TG_TABLE_NAME, NEW.execution_id); RETURN NEW; END $$`.execute(t.runtime.db);
    for (const table of ['runs', 'jobs']) await sql`CREATE TRIGGER ${sql.id(`${table}_applied`)} BEFORE INSERT ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION note_applied()`.execute(t.runtime.db);
    // This process serves the API and runs /execute runs; it does not run projections: the workers do.
    ({ app, base } = await serveApi(t.runtime));
    const env = { ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_PROJECTION_LEASE_MS: '1500', SEQFLOW_JOB_LEASE_MS: '2000' };
    for (const id of ['runner-a', 'runner-b']) workers.set(id, spawnWorker({ ...env, SEQFLOW_WORKER_ID: id }));
  });
  afterAll(async () => {
    for (const worker of workers.values()) signalGroup(worker, 'SIGKILL');
    await app?.close();
    await t?.close();
  });

  const ownersByGroup = async () => new Map((await t.runtime.projections.status()).map((s) => [s.runner, s.owner]));
  const workerOf = (owner: string | null | undefined) => owner?.split('/')[0];

  it('splits the runners between two workers, and when one is killed the other takes them over: no event skipped, none applied twice', { timeout: 180_000 }, async () => {
    await until(async () => {
      const owners = await ownersByGroup();
      return GROUPS.every((g) => owners.get(g)) && new Set([...owners.values()].map(workerOf)).size === 2;
    }, 'both workers to run some of the runners', 60_000);
    expect([...(await ownersByGroup()).keys()].sort()).toEqual(GROUPS);

    const started: string[] = [];
    const jobs: string[] = [];
    let load = true;
    const call = async (path: 'execute' | 'jobs', i: number) => {
      const response = await fetch(`${base}/seq/acme/web/echo/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `m${i}` }) });
      expect(response.status).toBe(path === 'execute' ? 200 : 202);
      const { executionId } = (await response.json()) as { executionId: string };
      started.push(executionId);
      if (path === 'jobs') jobs.push(executionId);
    };
    let n = 0;
    const callers = Array.from({ length: 4 }, async (_, c) => {
      while (load) await call(c === 0 ? 'jobs' : 'execute', n++);
    });

    await until(() => started.length >= 40, '40 runs before the kill', 60_000);
    const victim = workerOf((await ownersByGroup()).get('runs'))!;
    const survivor = victim === 'runner-a' ? 'runner-b' : 'runner-a';
    process.kill(-workers.get(victim)!.pid!, 'SIGKILL');
    const killedAt = started.length;
    await until(async () => [...(await ownersByGroup()).values()].every((owner) => workerOf(owner) === survivor), 'the survivor to run every runner', 60_000).catch(async (error: Error) => {
      const leases = await t.runtime.db.selectFrom('projection_leases').selectAll().execute();
      throw new Error(`${error.message}; the leases: ${JSON.stringify(leases)}`);
    });
    await until(() => started.length >= killedAt + 40, '40 runs after the takeover', 60_000);
    load = false;
    await Promise.all(callers);

    // Every run's request and end reached the read models; every job ran (the survivor took the dead one's over).
    await until(async () => {
      const rows = await t.runtime.db.selectFrom('runs').select(['execution_id', 'status']).where('execution_id', 'in', started).execute();
      const jobRows = await t.runtime.db.selectFrom('jobs').select(['execution_id', 'status']).where('execution_id', 'in', jobs).execute();
      return rows.length === started.length && rows.every((r) => r.status === 'completed') && jobRows.length === jobs.length && jobRows.every((r) => r.status === 'completed');
    }, 'every run completed in the read models', 90_000);
    const { rows: twice } = await sql<{ tbl: string; id: string; n: number }>`SELECT tbl, id, count(*)::int AS n FROM applied GROUP BY tbl, id HAVING count(*) > 1`.execute(t.runtime.db);
    expect(twice).toEqual([]);
    const { rows: counted } = await sql<{ tbl: string; n: number }>`SELECT tbl, count(*)::int AS n FROM applied GROUP BY tbl ORDER BY tbl`.execute(t.runtime.db);
    expect(counted).toEqual([
      { tbl: 'jobs', n: jobs.length },
      { tbl: 'runs', n: started.length },
    ]);

    const status = await t.runtime.projections.status();
    expect(status.filter((s) => s.stalled !== null)).toEqual([]);
    expect(workers.get(survivor)!.exitCode).toBeNull();
    const verified = await verifyReadModels({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: allProjections, logger: t.runtime.logger, databaseUrl: t.runtime.databaseUrl });
    expect(verified.tables.filter((table) => table.liveHash !== table.shadowHash)).toEqual([]);
    expect(verified.ok).toBe(true);
  });
});
