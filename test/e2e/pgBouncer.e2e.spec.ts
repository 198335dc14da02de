import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config/config.ts';
import { allProjections } from '../../src/projections/allProjections.ts';
import { verifyReadModels } from '../../src/projections/readModelVerification.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type PgBouncer, startPgBouncer } from '../support/pgBouncer.ts';
import { spawnWorker } from '../support/runProcess.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';
import { seedProject, serveApi } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * Seqflow behind a real PgBouncer in transaction mode (docs/running.md): DATABASE_URL is PgBouncer,
 * DATABASE_DIRECT_URL the server, which only the log's LISTEN connection and tools with sessions of
 * their own use. Jobs and their webhooks run through it with two worker processes.
 */
describe('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let runtime: Runtime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let receiver: HttpsReceiver;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    receiver = await startHttpsReceiver((_request, res) => res.writeHead(200).end('ok'));
    database = await createTestDatabase('pgbouncer');
    bouncer = await startPgBouncer(database.url);
    // The server's own sessions are named, so the test can tell them from PgBouncer's.
    const direct = new URL(database.url);
    direct.searchParams.set('application_name', 'seqflow-direct');
    const env = {
      DATABASE_URL: bouncer.pooled(database.url),
      DATABASE_DIRECT_URL: direct.toString(),
      SEQFLOW_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      SEQFLOW_DEMO: 'false',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
    };
    // This process migrates through PgBouncer, serves the API, and runs no worker.
    runtime = await openRuntime(loadConfig(env), pino({ level: 'silent' }));
    key = await seedProject(runtime, { answer: [{ block: { name: 'shout', processor_type: 'code', code: 'return { loud: input.message.toUpperCase() };' } }] });
    await runtime.projections.catchUp();
    await runtime.projections.start();
    ({ app, base } = await serveApi(runtime));
    for (const id of ['bounced-a', 'bounced-b']) workers.push(spawnWorker({ ...env, SEQFLOW_WORKER_ID: id, LOG_LEVEL: 'warn' }));
  });
  afterAll(async () => {
    for (const worker of workers) signalGroup(worker, 'SIGKILL');
    await app?.close();
    await runtime?.close();
    await bouncer?.close();
    await database?.drop();
    await receiver?.close();
  });

  it('runs jobs with two workers and delivers each webhook once, every statement through PgBouncer', { timeout: 180_000 }, async () => {
    const before = await bouncer.transactions(database.name);
    const submit = async (i: number) => {
      const response = await fetch(`${base}/seq/acme/web/answer/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: `job ${i}`, callbackUrl: `${receiver.url}/hook` }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { executionId: string }).executionId;
    };
    const jobs = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(i)));
    const poll = async (executionId: string) => (await (await fetch(`${base}/seq/acme/web/answer/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; result: unknown };
    await until(async () => (await Promise.all(jobs.map(poll))).every((job) => job.status === 'completed'), 'every job to complete', 60_000);
    expect((await poll(jobs[3]!)).result).toEqual({ loud: 'JOB 3' });

    const bodyOf = (i: number) => JSON.parse(receiver.received[i]!.body) as { executionId: string; event: string; result: unknown };
    await until(() => jobs.every((id) => receiver.received.some((_r, i) => bodyOf(i).executionId === id)), 'a webhook for every job', 60_000);
    for (const [i, id] of jobs.entries()) {
      const delivered = receiver.received.map((_r, n) => bodyOf(n)).filter((b) => b.executionId === id);
      expect(delivered).toEqual([expect.objectContaining({ event: 'flow.completed', result: { loud: `JOB ${i}` } })]);
    }
    // Both workers ran jobs, and PgBouncer carried the work.
    const claimedBy = new Set((await runtime.db.selectFrom('job_leases').select('owner').where('execution_id', 'in', jobs).execute()).map((l) => l.owner));
    expect([...claimedBy].sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^bounced-/)]));
    expect(await bouncer.transactions(database.name)).toBeGreaterThan(before + jobs.length);
    for (const worker of workers) expect(worker.exitCode).toBeNull();
  });

  it("keeps each process's LISTEN connection on the server itself, where notifications reach it", async () => {
    // The API process and both workers each hold one: on the server, never through PgBouncer (which hands a server connection to another client after each transaction).
    await until(async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'seqflow-direct' AND query LIKE 'LISTEN %'`.execute(runtime.db);
      return rows[0]!.n >= 3;
    }, 'three LISTEN sessions on the server');
  });

  it('verifies the read models against shadow copies, whose sessions go to the server (PgBouncer refuses their search_path)', async () => {
    await runtime.projections.catchUp();
    const result = await verifyReadModels({ db: runtime.db, eventStore: runtime.eventStore, projections: allProjections, logger: runtime.logger, databaseUrl: runtime.databaseUrl });
    expect(result.ok).toBe(true);
  });
});
