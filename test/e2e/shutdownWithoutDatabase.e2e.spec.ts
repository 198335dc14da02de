import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RestartablePostgres, startRestartablePostgres } from '../support/restartablePostgres.ts';
import { spawnServe } from '../support/runProcess.ts';
import { signalGroup } from '../support/signalGroup.ts';
import { freePort } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * SIGTERM while the database is gone: the workers cannot give their leases back, so the drain fails.
 * That failure was unhandled and ended the process there, its runtime never closed (an embedded
 * PostgreSQL was left running). The shutdown now says what it could not do, closes everything, and
 * exits 1.
 */
describe('a shutdown while the database is gone', () => {
  let database: RestartablePostgres;
  let served: ReturnType<typeof spawnServe> | undefined;

  beforeAll(async () => {
    database = await startRestartablePostgres();
  }, 120_000);
  afterAll(async () => {
    if (served) signalGroup(served.child, 'SIGKILL');
    await database?.close();
  });

  it('logs the drain it could not finish, closes the runtime all the same, and exits 1', async () => {
    const port = await freePort();
    served = spawnServe({ DATABASE_URL: database.url, SEQFLOW_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), PORT: String(port), LOG_LEVEL: 'info' });
    await until(() => fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false), `the service to serve (${served!.output()})`, 120_000);
    await database.stop();

    served.child.kill('SIGTERM');
    expect(await served.exited, served.output()).toBe(1);
    const entries = served.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });
    const after = entries.slice(entries.findIndex((entry) => entry.msg.startsWith('shutting down')));
    expect(after).toContainEqual(expect.objectContaining({ level: 50, msg: 'the shutdown could not drain everything; closing the rest', err: expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }) }));
    expect(after.at(-1), served.output()).toMatchObject({ level: 30, msg: 'stopped' });
  }, 180_000);
});
