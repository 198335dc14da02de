/**
 * `npm run bench:profile-jobs`: where a /jobs job's time goes. The jobs bench's service (a
 * passthrough flow, 32 callers in a process of their own, a worker in the service's process running
 * 16 at a time) with the V8 CPU profiler on from the first accept until the last job's row says
 * completed. Prints JSON: the jobs per second while profiled, the CPU per job of the service, of
 * PostgreSQL and of the rest of the machine, the SQL statements per job, and the service's self time
 * grouped as `npm run bench:profile` groups it. The profile is written to test-output/jobs.cpuprofile.
 */
import { openBenchDatabases } from './benchDatabases.ts';
import { startJobsService } from './jobsBench.ts';
import { startLoadProcess } from './loadClient.ts';
import { startProfiledWindow } from './profiledWindow.ts';

const JOBS = Number(process.env.PROFILE_JOBS ?? 3000);
const WARM_UP = 300;

const databases = await openBenchDatabases();
const loader = await startLoadProcess();
const service = await startJobsService(await databases.create('profile_jobs'));
let window: Awaited<ReturnType<typeof startProfiledWindow>> | undefined;
try {
  const load = (total: number) => loader.load({ url: service.url, key: service.key, concurrency: 32, total, status: 202, warmUp: 0 });
  // Warm: the JIT, the pools.
  await load(WARM_UP);
  await service.allCompleted(WARM_UP, 'the warm-up jobs to complete');

  window = await startProfiledWindow();
  const started = performance.now();
  const accepted = await load(JOBS);
  await service.allCompleted(WARM_UP + JOBS, 'the profiled jobs to complete');
  const seconds = (performance.now() - started) / 1000;
  const measured = await window.stop(JOBS, 'jobs');
  process.stdout.write(`${JSON.stringify({ jobs: JOBS, jobsPerSecond: Number((JOBS / seconds).toFixed(1)), acceptP50Ms: accepted.p50Ms, acceptP99Ms: accepted.p99Ms, ...measured }, null, 2)}\n`);
} finally {
  window?.disconnect();
  await loader.stop();
  await service.stop();
  await databases.dropAll();
}
process.exit(0);
