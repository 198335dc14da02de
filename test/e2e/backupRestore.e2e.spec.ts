import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServe } from '../support/runProcess.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';
import { freePort } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * docs/operations.md's backup and restore, as an operator runs them: pg_dump of a populated
 * database, pg_restore into another, `seqflow audit verify-log` and `seqflow projections verify` as
 * the acceptance of the restore, then a service on the restored database serves the same runs.
 */

/** pg_dump's major version when the machine has it: it must be at least the server's to dump it. */
function pgDumpMajor(): number | null {
  try {
    return Number(/(\d+)\./.exec(execFileSync('pg_dump', ['--version'], { encoding: 'utf8' }))![1]);
  } catch {
    return null;
  }
}

async function serverMajor(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Math.floor(Number((await client.query<{ server_version_num: string }>('SHOW server_version_num')).rows[0]!.server_version_num) / 10000);
  } finally {
    await client.end();
  }
}

const json = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

async function serving(env: Record<string, string>) {
  const port = await freePort();
  const served = spawnServe({ ...env, PORT: String(port) });
  // Serving, and its read models current (listings are as of the projections: docs/api.md): what a
  // source stopped with unapplied events left, the restored service applies after it starts.
  await until(
    async () => {
      const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => null);
      return health?.ok === true && ((await health.json()) as { projections: { maxBehind: number } }).projections.maxBehind === 0;
    },
    'the service to serve, its read models current',
    120_000,
  );
  return {
    base: `http://127.0.0.1:${port}/api/v1/seq/demo/demo/hello`,
    async stop() {
      signalGroup(served.child, 'SIGTERM');
      await served.exited;
    },
  };
}

describe('a backup restored into another database verifies and serves the same runs', () => {
  let source: TestDatabase;
  let restored: TestDatabase;
  let folder: string;
  let dumpable = true;
  const masterKey = randomBytes(32).toString('base64');
  const envOf = (database: TestDatabase) => ({ DATABASE_URL: database.url, SEQFLOW_MASTER_KEY: masterKey, SEQFLOW_DATA_DIR: '' });
  let auth: { authorization: string };
  const recorded: { executionIds: string[]; erased: string; job: string } = { executionIds: [], erased: '', job: '' };

  beforeAll(async () => {
    source = await createTestDatabase('backup_source');
    restored = await createTestDatabase('backup_restored');
    folder = await mkdtemp(path.join(tmpdir(), 'seqflow-backup-'));
    const major = pgDumpMajor();
    dumpable = major !== null && major >= (await serverMajor(source.url));
  }, 60_000);
  afterAll(async () => {
    await source?.drop();
    await restored?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('records runs, a job and an erasure on the source', async ({ skip }) => {
    if (!dumpable) skip('no pg_dump here as new as the test server');
    const service = await serving({ ...envOf(source), SEQFLOW_DEMO: 'true' });
    try {
      const key = await runCli(['apikey', 'create', '--org', 'demo', '--project', 'demo', '--env', 'live'], envOf(source));
      expect(key.code, key.stderr).toBe(0);
      auth = { authorization: `Bearer ${(json(key.stdout) as { key: string }).key}` };
      const headers = { ...auth, 'content-type': 'application/json' };
      for (const name of ['Ada', 'Grace', 'Edsger']) {
        const answer = await fetch(`${service.base}/execute`, { method: 'POST', headers, body: JSON.stringify({ message: name, parameters: { customer_id: name.toLowerCase() } }) });
        expect(answer.status).toBe(200);
        recorded.executionIds.push(((await answer.json()) as { executionId: string }).executionId);
      }
      const job = (await (await fetch(`${service.base}/jobs`, { method: 'POST', headers, body: JSON.stringify({ message: 'Barbara' }) })).json()) as { executionId: string };
      recorded.job = job.executionId;
      await until(async () => ((await (await fetch(`${service.base}/jobs/${job.executionId}`, { headers: auth })).json()) as { status: string }).status === 'completed', 'the job to complete', 60_000);
      recorded.erased = recorded.executionIds[1]!;
      expect((await fetch(`${service.base}/runs/${recorded.erased}/data?reason=customer%20request`, { method: 'DELETE', headers: auth })).status).toBe(200);
    } finally {
      await service.stop();
    }
  }, 240_000);

  it('pg_dump, then pg_restore into another database', async ({ skip }) => {
    if (!dumpable) skip('no pg_dump here as new as the test server');
    const dump = path.join(folder, 'seqflow.dump');
    execFileSync('pg_dump', ['--format=custom', '--file', dump, source.url]);
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restored.url, dump]);
  }, 120_000);

  it('the restored log verifies, and its read models equal their rebuild from it', async ({ skip }) => {
    if (!dumpable) skip('no pg_dump here as new as the test server');
    // As docs/operations.md says to, before serving: the planner's statistics, which a restore does not bring.
    execFileSync('vacuumdb', ['--analyze-only', '--quiet', '--dbname', restored.url]);
    const log = await runCli(['audit', 'verify-log'], envOf(restored));
    expect(log.code, log.stderr).toBe(0);
    expect(json(log.stdout)).toMatchObject({ ok: true, problem: null });
    const readModels = await runCli(['projections', 'verify'], envOf(restored));
    expect(readModels.code, readModels.stderr).toBe(0);
    expect(json(readModels.stdout)).toMatchObject({ ok: true });
  }, 240_000);

  it('a service on the restored database answers the same runs, the erased one still erased', async ({ skip }) => {
    if (!dumpable) skip('no pg_dump here as new as the test server');
    const answersOf = async (database: TestDatabase) => {
      const service = await serving(envOf(database));
      try {
        const runs = await (await fetch(`${service.base}/runs?limit=50`, { headers: auth })).json();
        const job = await (await fetch(`${service.base}/jobs/${recorded.job}`, { headers: auth })).json();
        const erasedAgain = await (await fetch(`${service.base}/runs/${recorded.erased}/data?reason=again`, { method: 'DELETE', headers: auth })).json();
        return { runs, job, erasedAgain };
      } finally {
        await service.stop();
      }
    };
    const fromRestored = await answersOf(restored);
    const fromSource = await answersOf(source);
    expect(fromRestored).toEqual(fromSource);
    const listed = (fromRestored.runs as { items: { executionId: string; dataErasedAt: string | null }[] }).items;
    expect(listed.map((run) => run.executionId).sort()).toEqual([...recorded.executionIds, recorded.job].sort());
    expect(listed.filter((run) => run.dataErasedAt !== null).map((run) => run.executionId)).toEqual([recorded.erased]);
    expect(fromRestored.job).toMatchObject({ status: 'completed', result: { greeting: 'Hello, Barbara!' } });
    expect(fromRestored.erasedAgain).toMatchObject({ executionId: recorded.erased, erasedNow: false });
  }, 240_000);
});
