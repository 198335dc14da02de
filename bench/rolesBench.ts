import { pollUntil } from './deadline.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startLoadProcess } from './loadClient.ts';

const bin = fileURLToPath(new URL('../bin/seqflow.js', import.meta.url));
const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const JOBS = 1000;
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export interface Topology {
  name: string;
  /** One entry per process: its role, and the port its API listens on (none for a worker). */
  processes: { role: 'all' | 'api' | 'worker'; port?: number }[];
  /** How the processes reach the database (the bench itself seeds and counts on `databaseUrl`): PgBouncer, replicas. */
  databaseEnv?: (databaseUrl: string) => Record<string, string>;
}

/**
 * The service as deployed: `seqflow serve` processes, all roles in one, or two `--role api` and one
 * `--role worker` on one database (this machine's 2 cores allow no more). The same load against each:
 * passthrough /execute at concurrency 32 spread over the API processes, and /jobs accept -> completed.
 */
export async function benchRoles(databaseFor: (name: string) => Promise<string>) {
  const topologies: Topology[] = [
    { name: 'oneProcessAllRoles', processes: [{ role: 'all', port: 18431 }] },
    { name: 'twoApiOneWorker', processes: [{ role: 'api', port: 18432 }, { role: 'api', port: 18433 }, { role: 'worker' }] },
  ];
  const results: Record<string, unknown> = {};
  for (const topology of topologies) results[topology.name] = await measure(topology, await databaseFor(topology.name.toLowerCase()));
  return results;
}

export async function measure(topology: Topology, databaseUrl: string) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent', SEQFLOW_DEMO: 'false', SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_HEALTH_PORT: '0', SEQFLOW_METRICS_PORT: '0', SEQFLOW_DEFAULT_CREDITS: '1000000000', SEQFLOW_JOB_CONCURRENCY: '16' };
  const runtime = await openRuntime(loadConfig(env), pino({ level: 'silent' }));
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'pass', name: 'pass', steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }] }, production: true }, principal);
  const { key } = await createApiKey(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  const children: ChildProcess[] = topology.processes.map(({ role, port }) =>
    spawn(process.execPath, [bin, 'serve', '--role', role], { env: { ...env, ...topology.databaseEnv?.(databaseUrl), PORT: String(port ?? 0) }, stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  const loader = await startLoadProcess();
  try {
    const bases = topology.processes.filter((p) => p.port).map((p) => `http://127.0.0.1:${p.port}/api/v1`);
    for (const base of bases) await healthy(base);
    // The API processes read the flow from the read models, which the worker (or the all-roles
    // process) projects: a load sent before that would be answered 404.
    for (const base of bases) {
      await pollUntil(async () => {
        const status = await fetch(`${base}/seq/bench/bench/pass`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status, () => 0);
        return { ok: status === 200, seen: `GET the flow answered ${status}` };
      }, 60_000, `the flow to be served by ${base}`, 100);
    }
    const execute = await loader.load({ url: bases.map((b) => `${b}/seq/bench/bench/pass/execute`), key, concurrency: 32, total: 3000, status: 200 });
    const before = await completedJobs(runtime);
    const started = performance.now();
    await loader.load({ url: bases.map((b) => `${b}/seq/bench/bench/pass/jobs`), key, concurrency: 32, total: JOBS, status: 202, warmUp: 0 });
    await pollUntil(async () => {
      const done = (await completedJobs(runtime)) - before;
      return { ok: done >= JOBS, seen: `${done} of ${JOBS} jobs completed` };
    }, 600_000, `the jobs to complete on ${topology.processes.map((p) => p.role).join(' + ')}`);
    return { processes: topology.processes.map((p) => p.role).join(' + '), executePassthroughC32: execute, jobsPerSecond: round(JOBS / ((performance.now() - started) / 1000)) };
  } finally {
    await loader.stop();
    await Promise.all(children.map((child) => new Promise((r) => (child.exitCode !== null ? r(null) : (child.once('exit', r), child.kill('SIGTERM'))))));
    await runtime.close();
  }
}

async function healthy(base: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${base}/health`).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${base} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function completedJobs(runtime: Awaited<ReturnType<typeof openRuntime>>) {
  const row = await runtime.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'completed').executeTakeFirstOrThrow();
  return Number(row.n);
}
