import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunHistory } from '../../src/execution/runHistoryOf.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type SwitchableReceiver, startSwitchableReceiver } from '../support/switchableReceiver.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { reportFigures } from './faultFigures.ts';

const JOBS = 40;

describe('PostgreSQL terminating the service\'s connections every 300 ms during a burst of jobs with callbacks', () => {
  let t: TestRuntime;
  let receiver: SwitchableReceiver;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let admin: pg.Client;

  beforeAll(async () => {
    receiver = await startSwitchableReceiver();
    t = await createTestRuntime('db_faults', {
      SEQFLOW_JOB_LEASE_MS: '1000',
      SEQFLOW_DELIVERY_LEASE_MS: '1000',
      SEQFLOW_RESTART_DELAY_MS: '50',
      SEQFLOW_JOB_MAX_CLAIMS: '50',
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
    });
    key = await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { ok: true };' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
    admin = new pg.Client({ connectionString: t.database.url });
    admin.on('error', () => undefined);
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await app?.close();
    await t?.close();
    await receiver?.close();
  });

  /** Terminates every other backend of the test database. */
  const terminate = () => admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');

  it('answers every request (202, or 503 DATABASE_UNAVAILABLE), stays up, ends every accepted job and delivers its callback', async () => {
    const workers = await startWorkers(t.runtime);
    let terminating = true;
    let terminations = 0;
    const terminator = (async () => {
      while (terminating) {
        await new Promise((r) => setTimeout(r, 300));
        terminations += (await terminate()).rows[0]!.n;
      }
    })();
    const answers: { status: number; code?: string; executionId?: string }[] = [];
    try {
      for (let i = 0; i < JOBS; i += 4) {
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            const response = await fetch(`${base}/seq/acme/web/echo/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go', callbackUrl: `${receiver.url}/hook` }) });
            const body = (await response.json()) as { executionId?: string; detail?: { code: string } };
            answers.push({ status: response.status, code: body.detail?.code, executionId: body.executionId });
          }),
        );
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      terminating = false;
      await terminator;
    }
    expect(terminations).toBeGreaterThan(0);
    expect(answers).toHaveLength(JOBS);
    for (const answer of answers) expect(answer.status === 202 || (answer.status === 503 && answer.code === 'DATABASE_UNAVAILABLE')).toBe(true);
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.executionId!);
    expect(accepted.length).toBeGreaterThan(0);
    const started = Date.now();
    try {
      const ended = async () => (await Promise.all(accepted.map(async (id) => (await readRunHistory(t.runtime.eventStore, id)).history.status))).filter((s) => s === 'completed' || s === 'failed').length;
      await until(async () => (await ended()) === accepted.length, 'every accepted job to end', 60_000);
      // Every delivery ends: delivered (the receiver answers 200), at least once, always under one id.
      await until(() => accepted.every((id) => receiver.received.some((r) => r.executionId === id)), 'every callback', 60_000);
    } finally {
      await workers.stop();
    }
    const ids = new Map<string, Set<string>>();
    for (const post of receiver.received) ids.set(post.executionId, (ids.get(post.executionId) ?? new Set()).add(post.deliveryId));
    for (const deliveryIds of ids.values()) expect(deliveryIds.size).toBe(1);
    reportFigures('connections-terminated', {
      terminations,
      requests: answers.length,
      accepted: accepted.length,
      refused503: answers.length - accepted.length,
      allDeliveredAfterMs: Date.now() - started,
      duplicatePosts: receiver.received.length - ids.size,
    });
  });
});
