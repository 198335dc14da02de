import { pollUntil } from './deadline.ts';
import { randomBytes } from 'node:crypto';
import { Logger, makeWorkerUtils, run as runGraphileWorker } from 'graphile-worker';
import pg from 'pg';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startWorkers } from '../src/runtime/workerRole.ts';
import { startLoadProcess } from './loadClient.ts';
import { statementsDuring } from './queryCounter.ts';

const JOBS = 1500;
const CALLERS = 32;
const WORKER_CONCURRENCY = 16;
const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/**
 * `/jobs` accept -> completed for a passthrough flow (32 callers over HTTP from another process, a
 * worker in the service's process running 16 at a time), compared in the same run with
 * graphile-worker on the same server: 32 callers enqueueing a job that does nothing, a worker
 * running 16 at a time. Jobs per second from the first accept to the last completion.
 */
export async function benchJobs(seqflowDatabaseUrl: string, graphileDatabaseUrl: string) {
  const ours = await seqflowJobs(seqflowDatabaseUrl);
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) return { ours, graphileWorker: `skipped: graphile-worker 0.18 needs Node >= 22.18 (this is ${process.version}; npm run bench uses the node dev dependency)` };
  const graphile = await graphileJobs(graphileDatabaseUrl);
  return { jobs: JOBS, workerConcurrency: WORKER_CONCURRENCY, ours, graphileWorker: graphile, oursToGraphileWorker: round(ours.jobsPerSecond / graphile.jobsPerSecond, 2) };
}

/**
 * The service the jobs bench measures: a runtime with a passthrough flow `pass`, its worker (16 at a
 * time) and its API in this process. `completed()` counts the jobs its read model says completed,
 * `allCompleted(n, what)` waits (with a deadline) until n have.
 */
export async function startJobsService(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_JOB_CONCURRENCY: String(WORKER_CONCURRENCY), SEQFLOW_DEFAULT_CREDITS: '1000000000', LOG_LEVEL: 'silent' });
  const runtime = await openRuntime(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }));
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'pass', name: 'pass', steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }] }, production: true }, principal);
  const { key } = await createApiKey(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  await runtime.projections.start();
  const workers = await startWorkers(runtime);
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const completed = async () => Number((await runtime.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'completed').executeTakeFirstOrThrow()).n);
  return {
    url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/pass/jobs`,
    key,
    allCompleted: (total: number, what: string) =>
      pollUntil(async () => {
        const done = await completed();
        return { ok: done >= total, seen: `${done} of ${total} jobs completed` };
      }, 600_000, what),
    async stop() {
      await app.close();
      await workers.stop();
      await runtime.close();
    },
  };
}

async function seqflowJobs(databaseUrl: string) {
  const loader = await startLoadProcess();
  const service = await startJobsService(databaseUrl);
  try {
    const started = performance.now();
    const { result: accepted, perUnit } = await statementsDuring(JOBS, async () => {
      const load = await loader.load({ url: service.url, key: service.key, concurrency: CALLERS, total: JOBS, status: 202, warmUp: 0 });
      await service.allCompleted(JOBS, 'the accepted jobs to complete');
      return load;
    });
    const seconds = (performance.now() - started) / 1000;
    return { jobsPerSecond: round(JOBS / seconds), acceptP50Ms: accepted.p50Ms, acceptP99Ms: accepted.p99Ms, statementsPerJob: perUnit };
  } finally {
    await loader.stop();
    await service.stop();
  }
}

async function graphileJobs(connectionString: string) {
  const logger = new Logger(() => () => undefined);
  // Our own pool, so that dropping the bench database at the end finds it closed.
  const pgPool = new pg.Pool({ connectionString, max: 20 });
  pgPool.on('error', () => undefined);
  const utils = await makeWorkerUtils({ pgPool, logger });
  await utils.migrate();
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((r) => (allDone = r));
  const runner = await runGraphileWorker({
    pgPool,
    concurrency: WORKER_CONCURRENCY,
    noHandleSignals: true,
    logger,
    taskList: {
      noop: async () => {
        if (++done === JOBS) allDone();
      },
    },
  });
  try {
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CALLERS }, async () => {
      while (next++ < JOBS) await utils.addJob('noop', { message: 'The quick brown fox jumps over the lazy dog' });
    }));
    await finished;
    return { jobsPerSecond: round(JOBS / ((performance.now() - started) / 1000)) };
  } finally {
    await runner.stop();
    await utils.release();
    await pgPool.end();
  }
}
