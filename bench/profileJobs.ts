/**
 * `npm run bench:profile-jobs`: where a /jobs job's time goes. The jobs bench's service (a
 * passthrough flow, 32 callers in a process of their own, a worker in the service's process running
 * 16 at a time) with the V8 CPU profiler on from the first accept until the last job's row says
 * completed. Prints JSON: the jobs per second while profiled, the CPU per job of the service, of
 * PostgreSQL and of the rest of the machine, the SQL statements per job, and the service's self time
 * grouped as `npm run bench:profile` groups it. The profile is written to test-output/jobs.cpuprofile.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import type { Runtime } from '../src/runtime/runtime.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startWorkers } from '../src/runtime/workerRole.ts';
import { openBenchDatabases } from './benchDatabases.ts';
import { pollUntil } from './deadline.ts';
import { startLoadProcess } from './loadClient.ts';
import { startProfiledWindow } from './profiledWindow.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const JOBS = Number(process.env.PROFILE_JOBS ?? 3000);

const completedJobs = async (runtime: Runtime) =>
  Number((await runtime.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'completed').executeTakeFirstOrThrow()).n);

const databases = await openBenchDatabases();
const loader = await startLoadProcess();
const runtime = await openRuntime(
  loadConfig({ DATABASE_URL: await databases.create('profile_jobs'), SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_JOB_CONCURRENCY: '16', SEQFLOW_DEFAULT_CREDITS: '1000000000', LOG_LEVEL: 'silent' }),
  pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }),
);
let window: Awaited<ReturnType<typeof startProfiledWindow>> | undefined;
try {
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'pass', name: 'pass', steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }] }, production: true }, principal);
  const { key } = await createApiKey(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  await runtime.projections.start();
  const workers = await startWorkers(runtime);
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/pass/jobs`;
  const allDone = (total: number, what: string) =>
    pollUntil(async () => {
      const done = await completedJobs(runtime);
      return { ok: done >= total, seen: `${done} of ${total} jobs completed` };
    }, 600_000, what);
  // Warm: the JIT, the pools.
  await loader.load({ url, key, concurrency: 32, total: 300, status: 202, warmUp: 0 });
  await allDone(300, 'the warm-up jobs to complete');

  window = await startProfiledWindow();
  const started = performance.now();
  const accepted = await loader.load({ url, key, concurrency: 32, total: JOBS, status: 202, warmUp: 0 });
  await allDone(300 + JOBS, 'the profiled jobs to complete');
  const seconds = (performance.now() - started) / 1000;
  const measured = await window.stop(JOBS, 'jobs');
  process.stdout.write(`${JSON.stringify({ jobs: JOBS, jobsPerSecond: Number((JOBS / seconds).toFixed(1)), acceptP50Ms: accepted.p50Ms, acceptP99Ms: accepted.p99Ms, ...measured }, null, 2)}\n`);
  await app.close();
  await workers.stop();
} finally {
  window?.disconnect();
  await loader.stop();
  await runtime.close();
  await databases.dropAll();
}
process.exit(0);
