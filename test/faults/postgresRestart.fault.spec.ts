import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { parseApiKey } from '../../src/domain/apiKeys/apiKeyFormat.ts';
import { openRuntime } from '../../src/runtime/runtime.ts';
import { type ServiceDatabase, serviceDatabase } from '../support/pgBouncer.ts';
import { type RestartablePostgres, startRestartablePostgres } from '../support/restartablePostgres.ts';
import { runCli, spawnServe } from '../support/runProcess.ts';
import { type SwitchableReceiver, startSwitchableReceiver } from '../support/switchableReceiver.ts';
import { freePort, seedProject } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { logRows, reportFigures } from './faultFigures.ts';
import { signalGroup } from '../support/signalGroup.ts';

const JOBS = 60;
/** The log watch trusts memory only while it was current within 5 s: a cache agrees with the log within this. */
const CACHE_BOUND_MS = 5000;

describe('PostgreSQL restarted under a burst of jobs with callbacks', () => {
  let pg: RestartablePostgres;
  let service: ServiceDatabase;
  let receiver: SwitchableReceiver;
  let server: ReturnType<typeof spawnServe>;
  let base: string;
  let key: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    pg = await startRestartablePostgres();
    service = await serviceDatabase(pg.url);
    receiver = await startSwitchableReceiver();
    env = {
      ...service.env,
      SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_JOB_LEASE_MS: '2000',
      SEQFLOW_DELIVERY_LEASE_MS: '2000',
      SEQFLOW_RESTART_DELAY_MS: '100',
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
      LOG_LEVEL: 'warn',
    };
    // The project, flow and key, written by a runtime of the test that is closed before the fault.
    const seeding = await openRuntime(loadConfig({ ...env, SEQFLOW_DEMO: 'false' }), pino({ level: 'warn' }));
    try {
      key = await seedProject(seeding, { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { ok: input.message };' } }] });
      // The read models hold the flow before the server takes its first job (the CLI's commands wait alike).
      await seeding.projections.catchUp();
    } finally {
      await seeding.close();
    }
    const port = await freePort();
    server = spawnServe({ ...env, PORT: String(port) });
    base = `http://127.0.0.1:${port}/api/v1`;
    await until(() => fetch(`${base}/health`).then((r) => r.ok, () => false), `the server to answer (${server.output()})`);
  });
  afterAll(async () => {
    if (server) {
      signalGroup(server.child, 'SIGKILL');
      await server.exited;
    }
    await receiver?.close();
    try {
      await service?.assertUsed();
    } finally {
      await service?.close();
      await pg?.close();
    }
  });

  const submit = async () => {
    try {
      const response = await fetch(`${base}/seq/acme/web/echo/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'go', callbackUrl: `${receiver.url}/hook` }),
      });
      const body = (await response.json()) as { executionId?: string; detail?: { code: string } };
      return { status: response.status, code: body.detail?.code, executionId: body.executionId };
    } catch (error) {
      return { status: 0, code: `no answer: ${(error as Error).message}` };
    }
  };

  it('answers every request (202, or 503 DATABASE_UNAVAILABLE), stays up, ends and delivers every accepted job once, and its caches agree with the log again', async () => {
    const answers: Awaited<ReturnType<typeof submit>>[] = [];
    let downMs = 0;
    let upAgainAt: number | undefined;
    let restart: Promise<void> | undefined;
    const started = Date.now();
    // Jobs go on arriving, 4 at a time, before the restart, while the server is down, and for 2 s after it is back.
    while (answers.length < JOBS || upAgainAt === undefined || Date.now() < upAgainAt + 2000) {
      answers.push(...(await Promise.all(Array.from({ length: 4 }, submit))));
      if (answers.length === 16) {
        restart = (async () => {
          const down = Date.now();
          await pg.stop();
          await new Promise((r) => setTimeout(r, 1000));
          await pg.start();
          upAgainAt = Date.now();
          downMs = upAgainAt - down;
        })();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await restart;
    expect(server.child.exitCode).toBeNull();

    for (const answer of answers) expect(answer.status === 202 || (answer.status === 503 && answer.code === 'DATABASE_UNAVAILABLE'), JSON.stringify(answer)).toBe(true);
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.executionId!);
    // Accepted before the restart, and again once the server is back (the last rounds).
    expect(answers.slice(0, 16).every((a) => a.status === 202)).toBe(true);
    expect(answers.slice(-4).every((a) => a.status === 202), JSON.stringify(answers.slice(-8))).toBe(true);

    await until(async () => new Set(receiver.received.map((r) => r.executionId)).size >= accepted.length, `every accepted job's callback (${server.output().slice(-2000)})`, 90_000);
    const endedMs = Date.now() - started;
    const completed = await logRows(pg.url, `event_type = 'ExecutionCompleted'`);
    const completions = new Map<string, number>();
    for (const row of completed) completions.set(row.data.executionId as string, (completions.get(row.data.executionId as string) ?? 0) + 1);
    for (const executionId of accepted) expect(completions.get(executionId), executionId).toBe(1);
    const deliveredTo = new Set(receiver.received.map((r) => r.executionId));
    for (const executionId of accepted) expect(deliveredTo.has(executionId)).toBe(true);
    // At least once: a delivery may arrive twice (its answer lost with the database), always under one id.
    const idsPerExecution = new Map<string, Set<string>>();
    for (const post of receiver.received) idsPerExecution.set(post.executionId, (idsPerExecution.get(post.executionId) ?? new Set()).add(post.deliveryId));
    for (const ids of idsPerExecution.values()) expect(ids.size).toBe(1);

    // The serving process's key cache agrees with the log again: a key revoked by another process is refused within the bound.
    const revoked = await runCli(['apikey', 'revoke', '--key-id', parseApiKey(key)!.keyId], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    const revokedAt = Date.now();
    await until(async () => (await submit()).status === 401, 'the revoked key to be refused', CACHE_BOUND_MS);
    const refusedAfterMs = Date.now() - revokedAt;
    expect(server.child.exitCode).toBeNull();

    reportFigures('postgres-restart', {
      requests: answers.length,
      accepted: accepted.length,
      refused503: answers.filter((a) => a.status === 503).length,
      acceptedAfterRestart: answers.slice(-8).filter((a) => a.status === 202).length,
      downMs,
      allDeliveredAfterMs: endedMs,
      posts: receiver.received.length,
      duplicatePosts: receiver.received.length - deliveredTo.size,
      revokedKeyRefusedAfterMs: refusedAfterMs,
    });
  });
});
