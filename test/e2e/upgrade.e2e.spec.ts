import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, spawnServe } from '../support/runProcess.ts';
import { createScratchDataFolder, removeScratchDataFolder } from '../support/scratchDataFolder.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';
import { freePort } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * An upgrade from the earlier release: a data folder and a database it wrote
 * (test/fixtures/upgrade, by scripts/write-upgrade-fixture.ts) are started by this code, which says
 * what it will migrate, migrates, verifies and serves what the earlier release recorded.
 */
const FIXTURE = path.join(ROOT, 'test/fixtures/upgrade/0.1.0-a66e1cd');

interface Recorded {
  apiKey: string;
  organization: string;
  project: string;
  flow: string;
  runs: { executionId: string; customer: string; result: unknown }[];
  job: { executionId: string; customer: string; result: unknown };
}
interface Manifest {
  commit: string;
  embedded: Recorded;
  database: Recorded & { masterKey: string };
}
const manifest = async () => JSON.parse(await readFile(path.join(FIXTURE, 'manifest.json'), 'utf8')) as Manifest;

/** pg_restore, when the machine has PostgreSQL's client programs. */
const pgRestore = (() => {
  try {
    execFileSync('pg_restore', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const json = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

/** What every upgraded deployment must still do: answer the recorded runs, run new ones, erase the new ones. */
async function servesWhatTheEarlierReleaseRecorded(recorded: Recorded, env: Record<string, string>) {
  const port = await freePort();
  const served = spawnServe({ ...env, PORT: String(port) });
  try {
    const base = `http://127.0.0.1:${port}/api/v1/seq/${recorded.organization}/${recorded.project}/${recorded.flow}`;
    const auth = { authorization: `Bearer ${recorded.apiKey}` };
    const headers = { ...auth, 'content-type': 'application/json' };
    await until(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => null))?.ok === true, 'the upgraded service to serve', 120_000);

    const poll = await (await fetch(`${base}/jobs/${recorded.job.executionId}`, { headers })).json();
    expect(poll).toMatchObject({ status: 'completed', result: recorded.job.result });
    const listed = (await (await fetch(`${base}/runs?limit=50`, { headers })).json()) as { items: { executionId: string; status: string }[] };
    expect(listed.items.map((run) => run.executionId).sort()).toEqual([...recorded.runs.map((run) => run.executionId), recorded.job.executionId].sort());
    expect(listed.items.every((run) => run.status === 'completed')).toBe(true);

    const fresh = await fetch(`${base}/execute`, { method: 'POST', headers, body: JSON.stringify({ message: 'after the upgrade', parameters: { customer_id: 'c-3001' } }) });
    const freshRun = (await fresh.json()) as { executionId: string; result: unknown };
    expect(fresh.status).toBe(200);
    expect(freshRun.result).toEqual({ customer: 'c-3001', note: 'AFTER THE UPGRADE' });
    const erasedFresh = await fetch(`${base}/runs/${freshRun.executionId}/data?reason=upgrade%20test`, { method: 'DELETE', headers: auth });
    expect(erasedFresh.status, await erasedFresh.clone().text()).toBe(200);

    // The earlier release stored its runs unsealed: no key to remove, so the erasure says so instead of claiming it.
    const erasedOld = await fetch(`${base}/runs/${recorded.runs[0]!.executionId}/data?reason=upgrade%20test`, { method: 'DELETE', headers: auth });
    expect(erasedOld.status).toBe(409);
    expect(await erasedOld.json()).toMatchObject({ detail: { code: 'CONFLICT', message: expect.stringContaining('before run data was sealed') } });
  } finally {
    signalGroup(served.child, 'SIGTERM');
    await served.exited;
  }
}

describe.skipIf(!pgRestore)('an upgrade of a database the earlier release wrote (DATABASE_URL)', () => {
  let database: TestDatabase;
  let recorded: Manifest['database'];
  let env: Record<string, string>;

  beforeAll(async () => {
    recorded = (await manifest()).database;
    database = await createTestDatabase('upgrade');
    execFileSync('pg_restore', ['--no-owner', '--dbname', database.url, path.join(FIXTURE, 'database.dump')]);
    env = { DATABASE_URL: database.url, SEQFLOW_MASTER_KEY: recorded.masterKey, SEQFLOW_DATA_DIR: '' };
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
  });

  const readModelMigrationsRun = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<{ name: string }>('SELECT name FROM seqflow_readmodel_migration ORDER BY name')).rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  };

  it('says which migrations it would run and what each does, and runs none (seqflow migrate --plan)', async () => {
    const before = await readModelMigrationsRun();
    const planned = await runCli(['migrate', '--plan'], env);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = json(planned.stdout) as { upToDate: boolean; pending: { eventLog: { name: string; summary: string }[]; readModels: { name: string; summary: string }[] } };
    expect(plan.upToDate).toBe(false);
    expect(plan.pending.eventLog.map((m) => m.name)).toEqual(['0005_kept_plans']);
    expect(plan.pending.eventLog.every((m) => m.summary.length > 20)).toBe(true);
    expect(plan.pending.readModels.map((m) => m.name)).toEqual(['0020_run_data_keys', '0021_retention_periods', '0022_process_reports', '0023_schedules', '0024_projection_leases', '0025_deliveries_due_order', '0026_job_error_detail', '0027_backtest_erased_runs', '0028_approvals', '0029_child_runs']);
    expect(plan.pending.readModels.every((m) => m.summary.length > 20)).toBe(true);
    expect(await readModelMigrationsRun()).toEqual(before);
  }, 120_000);

  it('migrates, then its log and read models verify', async () => {
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((json(migrated.stdout) as { ran: { eventLog: { name: string }[] } }).ran.eventLog.map((m) => m.name)).toEqual(['0005_kept_plans']);
    expect((json(migrated.stdout) as { ran: { readModels: { name: string }[] } }).ran.readModels.map((m) => m.name)).toEqual(['0020_run_data_keys', '0021_retention_periods', '0022_process_reports', '0023_schedules', '0024_projection_leases', '0025_deliveries_due_order', '0026_job_error_detail', '0027_backtest_erased_runs', '0028_approvals', '0029_child_runs']);
    expect(json((await runCli(['migrate', '--plan'], env)).stdout)).toMatchObject({ upToDate: true });

    const log = await runCli(['audit', 'verify-log'], env);
    expect(log.code, log.stderr).toBe(0);
    expect(json(log.stdout)).toMatchObject({ ok: true, problem: null });
    const readModels = await runCli(['projections', 'verify'], env);
    expect(readModels.code, readModels.stderr).toBe(0);
    expect(json(readModels.stdout)).toMatchObject({ ok: true });
  }, 240_000);

  it('serves the runs the earlier release recorded, and runs new ones', async () => {
    await servesWhatTheEarlierReleaseRecorded(recorded, env);
  }, 240_000);
});

describe('an upgrade of a data folder the earlier release wrote (the embedded PostgreSQL)', () => {
  let dataDir: string;
  let recorded: Recorded;
  let env: Record<string, string>;

  beforeAll(async () => {
    recorded = (await manifest()).embedded;
    dataDir = await createScratchDataFolder('upgrade');
    execFileSync('tar', ['-xJf', path.join(FIXTURE, 'data-folder.tar.xz'), '-C', dataDir]);
    // The port it chose on the machine that wrote it may be taken here.
    const settingsFile = path.join(dataDir, 'embedded-postgres.json');
    const settings = JSON.parse(await readFile(settingsFile, 'utf8')) as { port: number };
    await writeFile(settingsFile, JSON.stringify({ ...settings, port: await freePort() }));
    env = { DATABASE_URL: '', SEQFLOW_MASTER_KEY: '', SEQFLOW_DATA_DIR: dataDir };
  }, 120_000);
  afterAll(async () => {
    if (dataDir) await removeScratchDataFolder(dataDir);
  }, 120_000);

  it('migrates on start, verifies, and serves the runs the earlier release recorded', async () => {
    const planned = await runCli(['migrate', '--plan'], env);
    expect(planned.code, planned.stderr).toBe(0);
    expect((json(planned.stdout) as { pending: { readModels: { name: string }[] } }).pending.readModels.map((m) => m.name)).toEqual(['0020_run_data_keys', '0021_retention_periods', '0022_process_reports', '0023_schedules', '0024_projection_leases', '0025_deliveries_due_order', '0026_job_error_detail', '0027_backtest_erased_runs', '0028_approvals', '0029_child_runs']);

    await servesWhatTheEarlierReleaseRecorded(recorded, env);

    const log = await runCli(['audit', 'verify-log'], env);
    expect(log.code, log.stderr).toBe(0);
    expect(json(log.stdout)).toMatchObject({ ok: true, problem: null });
  }, 480_000);
});
