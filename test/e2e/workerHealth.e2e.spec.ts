import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { setOperator } from '../../src/commands/operatorCommands.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { ROOT, spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, freePort, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

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
  let issuer: JwksIssuer;
  let consoleApp: FastifyInstance;

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    t = await createTestRuntime('worker_health', { OAUTH_ISSUER: issuer.issuer, OAUTH_AUDIENCE: 'seqflow', OAUTH_JWKS_URL: issuer.jwksUrl, SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    healthPort = await freePort();
    worker = spawnWorker({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_HEALTH_PORT: String(healthPort), SEQFLOW_WORKER_ID: 'worker-h', SEQFLOW_RUNNER_LEASE_MS: '3000' });
  });
  afterAll(async () => {
    if (worker) signalGroup(worker, 'SIGTERM');
    await consoleApp?.close();
    await t?.close();
    await issuer?.close();
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

  it("is one of the live processes the console's System view lists, with its role and its own tasks", async () => {
    await setOperator(t.runtime.commands, { subject: 'olga', operator: true }, testPrincipal);
    consoleApp = await buildConsoleServer(t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}/internal/trpc`;
    const operator = createTRPCClient<ConsoleRouter>({ links: [httpLink({ url, headers: { authorization: `Bearer ${await issuer.sign({ sub: 'olga', aud: 'seqflow' })}` } })] });
    // The worker's report is written as it renews its lease: at its start, then every third of the term.
    type Listed = Awaited<ReturnType<typeof operator.system.status.query>>['processes'][number];
    let workerProcess: Listed | undefined;
    await until(async () => {
      workerProcess = (await operator.system.status.query()).processes.find((p) => p.runnerId.startsWith('worker-h/') && p.report?.tasks.some((task) => task.name === 'job-runner'));
      return workerProcess !== undefined;
    }, 'the worker and its tasks in the System view', 90_000);
    const listed = workerProcess!;
    expect(listed.report).toMatchObject({ role: 'worker', pid: expect.any(Number), projections: { maxBehind: expect.any(Number), stalled: [] } });
    expect(listed.report!.tasks.map((task) => task.name)).toEqual(expect.arrayContaining(['job-runner', 'runner-lease']));
    // And the process serving the console, which the worker's tasks are not part of.
    const processes = (await operator.system.status.query()).processes;
    expect(processes.some((p) => p.runnerId === listed.runnerId)).toBe(true);
    expect(processes.length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
