import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServe } from '../support/runProcess.ts';
import { type SwitchableReceiver, startSwitchableReceiver } from '../support/switchableReceiver.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { createTestRuntime, freePort, seedProject, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { reportFigures } from './faultFigures.ts';
import { signalGroup } from '../support/signalGroup.ts';

const HELD_MS = 60_000;
const ROUND_EVERY_MS = 10_000;
/** A round of jobs must be delivered, and a revocation seen, within this while the transactions stay open. */
const ROUND_BOUND_MS = 10_000;

/**
 * Write transactions of strangers held open for a minute on the service's PostgreSQL server, one in
 * another database and one in the service's own, while jobs with callbacks arrive every 10 s and
 * keys are revoked by another process: nothing waits for the strangers.
 */
describe('foreign write transactions held open for a minute', () => {
  let t: TestRuntime;
  let other: TestDatabase;
  let receiver: SwitchableReceiver;
  let server: ReturnType<typeof spawnServe>;
  let base: string;
  let env: Record<string, string>;
  const strangers: pg.Client[] = [];

  beforeAll(async () => {
    receiver = await startSwitchableReceiver();
    const settings = { SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile, SEQFLOW_DEFAULT_CREDITS: '1000000' };
    t = await createTestRuntime('fault_held', settings);
    await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { ok: input.message };' } }] });
    await t.runtime.projections.catchUp();
    env = { ...settings, ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
    const port = await freePort();
    server = spawnServe({ ...env, PORT: String(port) });
    base = `http://127.0.0.1:${port}/api/v1`;
    await until(() => fetch(`${base}/health`).then((r) => r.ok, () => false), `the server to answer (${server.output()})`);
    other = await createTestDatabase('fault_held_elsewhere');
  });
  afterAll(async () => {
    for (const stranger of strangers) await stranger.end().catch(() => undefined);
    if (server) {
      signalGroup(server.child, 'SIGKILL');
      await server.exited;
    }
    await other?.drop();
    await receiver?.close();
    await t?.close();
  });

  const cli = async (...args: string[]) => {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, string>;
  };
  const submit = async (key: string) => {
    const response = await fetch(`${base}/seq/acme/web/echo/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go', callbackUrl: `${receiver.url}/hook` }) });
    return { status: response.status, executionId: ((await response.json()) as { executionId?: string }).executionId };
  };

  it('delivers every round of jobs and refuses every revoked key within the bound, for the whole minute', { timeout: HELD_MS + 60_000 }, async () => {
    for (const url of [other.url, t.database.url]) {
      const stranger = new pg.Client({ connectionString: url });
      stranger.on('error', () => undefined);
      await stranger.connect();
      await stranger.query('BEGIN');
      await stranger.query('SELECT pg_current_xact_id()');
      strangers.push(stranger);
    }
    const heldSince = Date.now();
    const rounds: { deliveredMs: number; revokedKeyRefusedMs: number }[] = [];
    while (Date.now() - heldSince < HELD_MS) {
      const roundStart = Date.now();
      const created = await cli('apikey', 'create', '--org', 'acme', '--project', 'web', '--env', 'test');
      const accepted = await Promise.all(Array.from({ length: 5 }, () => submit(created.key!)));
      expect(accepted.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
      const ids = accepted.map((a) => a.executionId!);
      const submitted = Date.now();
      await until(() => ids.every((id) => receiver.received.some((r) => r.executionId === id)), 'the round\'s callbacks', ROUND_BOUND_MS);
      const deliveredMs = Date.now() - submitted;

      await cli('apikey', 'revoke', '--key-id', created.keyId!);
      const revokedAt = Date.now();
      await until(async () => (await submit(created.key!)).status === 401, 'the revoked key to be refused', ROUND_BOUND_MS);
      rounds.push({ deliveredMs, revokedKeyRefusedMs: Date.now() - revokedAt });
      await new Promise((r) => setTimeout(r, Math.max(0, ROUND_EVERY_MS - (Date.now() - roundStart))));
    }
    // The strangers were still open all along.
    for (const stranger of strangers) expect((await stranger.query('SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS open')).rows[0].open).toBe(true);
    expect(server.child.exitCode).toBeNull();
    reportFigures('foreign-transactions-held', {
      heldMs: Date.now() - heldSince,
      rounds: rounds.length,
      deliveredMsMax: Math.max(...rounds.map((r) => r.deliveredMs)),
      revokedKeyRefusedMsMax: Math.max(...rounds.map((r) => r.revokedKeyRefusedMs)),
    });
  });
});
