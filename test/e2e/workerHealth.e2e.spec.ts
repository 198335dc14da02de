import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, freePort, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/** The image's HEALTHCHECK command, as the Dockerfile states it (the exec form's JSON array). */
function imageHealthCheck(): string[] {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const line = /^HEALTHCHECK .* CMD (\[.*\])$/m.exec(dockerfile);
  if (!line) throw new Error('the Dockerfile has no HEALTHCHECK in exec form');
  return JSON.parse(line[1]!) as string[];
}

const runHealthCheck = (env: Record<string, string>) =>
  new Promise<number>((resolve) => {
    const [command, ...args] = imageHealthCheck();
    // `node` as the image runs it: the one running these tests.
    execFile(command === 'node' ? process.execPath : command!, args, { env: { ...process.env, ...env }, timeout: 10_000 }, (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0));
  });

describe('a --role worker process serves its own health (it has no public port), and the image\'s HEALTHCHECK passes for it', () => {
  let t: TestRuntime;
  let healthPort: number;
  let worker: ReturnType<typeof spawnWorker>;

  beforeAll(async () => {
    t = await createTestRuntime('worker_health');
    healthPort = await freePort();
    worker = spawnWorker({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_HEALTH_PORT: String(healthPort), SEQFLOW_WORKER_ID: 'worker-h' });
  });
  afterAll(async () => {
    if (worker?.pid) {
      try {
        process.kill(-worker.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await t?.close();
  });

  it('answers /api/v1/health on SEQFLOW_HEALTH_PORT with the database, the log and its own tasks', async () => {
    const health = `http://127.0.0.1:${healthPort}/api/v1/health`;
    await until(async () => (await fetch(health).catch(() => null))?.ok === true, 'the worker to serve its health', 90_000);
    const report = (await (await fetch(health)).json()) as { status: string; database: { ok: boolean }; tasks: { name: string }[] };
    expect(report.status).toMatch(/^(ok|degraded)$/);
    expect(report.database.ok).toBe(true);
    // Its own supervised tasks, not an API process's: the job runner is a worker's.
    expect(report.tasks.length).toBeGreaterThan(0);
  }, 120_000);

  it('passes the image\'s HEALTHCHECK as a worker (its public port unused), and fails it when nothing answers', async () => {
    expect(await runHealthCheck({ PORT: String(await freePort()), SEQFLOW_HEALTH_PORT: String(healthPort) })).toBe(0);
    expect(await runHealthCheck({ PORT: String(await freePort()), SEQFLOW_HEALTH_PORT: String(await freePort()) })).not.toBe(0);
  }, 60_000);
});
