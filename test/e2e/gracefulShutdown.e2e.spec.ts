import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createJobRunner } from '../../src/workers/jobRunner.ts';
import { spawnServe } from '../support/runProcess.ts';
import { until } from '../support/until.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, type TestRuntime } from '../support/testRuntime.ts';
import { signalGroup } from '../support/signalGroup.ts';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });


describe('graceful shutdown of a real `seqflow serve` process (SIGTERM)', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let key: string;

  /** A server process on the test database; answers health before this resolves. */
  async function startServer(extra: Record<string, string> = {}) {
    const port = await freePort();
    const proc = spawnServe({
      DATABASE_URL: t.database.url,
      SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'),
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      PORT: String(port),
      ...extra,
    });
    const base = `http://127.0.0.1:${port}/api/v1`;
    await until(() => fetch(`${base}/health`).then((r) => r.ok, () => false), `the server to answer (${proc.output()})`);
    return { ...proc, base };
  }

  const execute = (base: string) =>
    fetch(`${base}/seq/acme/web/slow/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"message":"m"}' }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { status?: string; executionId?: string; detail?: { code: string; executionId?: string } },
    }));
  const refusesConnections = (base: string) => fetch(`${base}/health`).then(() => false, () => true);
  const streamOf = (executionId: string) => t.runtime.eventStore.readStream(`execution-${executionId}`);

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('shutdown', { SEQFLOW_DEFAULT_CREDITS: '1000000', OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    key = await seedProject(t.runtime, { slow: [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }] });
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  it('warns at start, naming SEQFLOW_OUTBOUND_ALLOW_CIDRS, when OPENAI_BASE_URL is an address the guard refuses', async () => {
    const proc = await startServer({ SEQFLOW_OUTBOUND_ALLOW_CIDRS: '' });
    await until(() => proc.output().includes('Warning: OPENAI_BASE_URL'), 'the warning');
    expect(proc.output()).toContain('allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS (e.g. 127.0.0.0/8)');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('stops, once started, when SIGTERM came while it was still starting (the signal is not lost)', async () => {
    // Another session holds a table the start needs: the server waits on it, mid-start.
    const holder = new pg.Client({ connectionString: t.database.url });
    holder.on('error', () => undefined);
    await holder.connect();
    let proc: ReturnType<typeof spawnServe> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE projection_checkpoints IN ACCESS EXCLUSIVE MODE');
      // Its sessions carry a name of their own: a session of this test's runtime that waits on the same
      // lock must not pass for the server, which may still be loading its modules (no handler yet).
      const url = new URL(t.database.url);
      url.searchParams.set('application_name', 'seqflow-starting');
      proc = spawnServe({ DATABASE_URL: url.toString(), SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), PORT: String(await freePort()), LOG_LEVEL: 'info' });
      // Asked from a session of its own: inside the holder's transaction, pg_stat_activity stays as it first read it.
      const waiting = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'seqflow-starting' AND wait_event_type = 'Lock'`.execute(t.runtime.db)).rows[0]!.n > 0;
      await until(waiting, `the starting server to wait on the lock (${proc.output()})`);
      expect(proc.output()).not.toContain('seqflow started');
      proc.child.kill('SIGTERM');
      await holder.query('COMMIT');
      expect(await proc.exited, proc.output()).toBe(0);
      expect(proc.output()).toContain('seqflow started');
      expect(proc.output()).toContain('"signal":"SIGTERM"');
    } finally {
      // Only a live group is killed, so this never hides the failure above.
      if (proc) signalGroup(proc.child, 'SIGKILL');
      await holder.end();
    }
  });

  it('stops accepting at once, lets a slow /execute finish and answer, then exits 0', async () => {
    server.reset();
    server.respond = () => ({ content: 'worth the wait', delayMs: 2500 });
    const proc = await startServer();
    const answer = execute(proc.base);
    let settled = false;
    void answer.finally(() => (settled = true));
    await until(() => server.requests.length === 1, 'the model call');
    proc.child.kill('SIGTERM');
    await until(() => refusesConnections(proc.base), 'new connections to be refused');
    expect(settled).toBe(false); // still waiting on the model, not cut
    const { status, body } = await answer;
    expect([status, body.status]).toEqual([200, 'completed']);
    expect(await proc.exited).toBe(0);
    expect((await streamOf(body.executionId!)).at(-1)!.type).toBe('ExecutionCompleted');
  });

  it('after the grace period, records a run still going as failed (RUN_INTERRUPTED) and answers its caller 503', async () => {
    server.reset();
    server.respond = () => ({ content: 'too late', delayMs: 60_000 });
    const proc = await startServer({ SEQFLOW_SHUTDOWN_GRACE_MS: '300' });
    const answer = execute(proc.base);
    await until(() => server.requests.length === 1, 'the model call');
    proc.child.kill('SIGTERM');
    const { status, body } = await answer;
    expect([status, body.detail?.code]).toEqual([503, 'RUN_INTERRUPTED']);
    expect(await proc.exited).toBe(0);
    const events = await streamOf(body.detail!.executionId!);
    expect(events.at(-1)).toMatchObject({ type: 'ExecutionFailed', data: { code: 'RUN_INTERRUPTED', reason: 'error' } });
  });

  it("releases a running job's lease at shutdown, so another worker takes it over at once", async () => {
    server.reset();
    let slow = true;
    server.respond = () => (slow ? { content: 'never', delayMs: 60_000 } : { content: 'taken over' });
    // A lease far longer than this test: only its release lets another worker in.
    const proc = await startServer({ SEQFLOW_SHUTDOWN_GRACE_MS: '300', SEQFLOW_JOB_LEASE_MS: '600000', SEQFLOW_WORKER_ID: 'leaving' });
    const projectId = (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id;
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'slow' }, projectId);
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: { kind: 'system', id: 'test' }, callback: null });
    await until(() => server.requests.length === 1, 'the leaving worker to call the model');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);

    slow = false;
    await t.runtime.projections.start();
    const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 5000, concurrency: 1, workerId: 'staying', pollMs: 20 });
    runner.start();
    try {
      await until(async () => (await streamOf(executionId)).at(-1)?.type === 'ExecutionCompleted', 'the takeover to finish the job');
      const claims = (await streamOf(executionId)).filter((e) => e.type === 'JobClaimed').map((e) => (e.data as { worker: string }).worker);
      expect(claims).toEqual(['leaving', 'staying']);
    } finally {
      await runner.stop();
      await t.runtime.projections.stop();
    }
  });
});
