/**
 * `npm run bench:profile-deliveries`: where a webhook delivery's time goes. The delivery bench's
 * backlog (deliveries created while no dispatcher ran, to the HTTPS receiver in a process of its
 * own), drained by the worker role with the V8 CPU profiler on for the drain only. Prints JSON: the
 * deliveries per second while profiled, the CPU per delivery of the service, of PostgreSQL and of
 * the rest of the machine, the SQL statements per delivery, and the service's self time grouped as
 * `npm run bench:profile` groups it. The profile is written to test-output/deliveries.cpuprofile.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startWorkers } from '../src/runtime/workerRole.ts';
import { openBenchDatabases } from './benchDatabases.ts';
import { withDeadline } from './deadline.ts';
import { startProfiledWindow } from './profiledWindow.ts';
import { createBacklog, startBenchReceiver } from './deliveryBench.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const DELIVERIES = Number(process.env.PROFILE_DELIVERIES ?? 3000);

const databases = await openBenchDatabases();
const receiver = await startBenchReceiver();
const runtime = await openRuntime(
  loadConfig({ DATABASE_URL: await databases.create('profile_hooks'), SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.certFile, LOG_LEVEL: 'silent' }),
  pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }),
);
let window: Awaited<ReturnType<typeof startProfiledWindow>> | undefined;
try {
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  const project = await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'f', name: 'f', steps: [{ block: { name: 'pass', processor_type: 'passthrough' } }] }, production: true }, principal);
  await runtime.projections.catchUp();
  const flow = await runtime.flows.findExecutableFlow({ org: 'bench', project: 'bench', flow: 'f' }, project.id);
  // Warm: the JIT, the pools, the receiver's connections.
  await createBacklog(runtime, flow, receiver.hook, 300);
  await runtime.projections.catchUp();
  let workers = await startWorkers(runtime);
  await withDeadline(receiver.arrivalsOf(300), 300_000, 'the warm-up deliveries');
  await workers.stop();
  await receiver.ask('reset');

  await createBacklog(runtime, flow, receiver.hook, DELIVERIES);
  await runtime.projections.catchUp();
  window = await startProfiledWindow();
  const started = Date.now();
  workers = await startWorkers(runtime);
  const drained = await withDeadline(receiver.arrivalsOf(DELIVERIES), 300_000, 'the backlog to arrive');
  const last = Math.max(...Object.values(drained.arrivals));
  const figures = await window.stop(DELIVERIES, 'deliveries');
  await workers.stop();
  const deliveriesPerSecond = Number((DELIVERIES / Math.max(0.001, (last - started) / 1000)).toFixed(1));
  process.stdout.write(`${JSON.stringify({ deliveries: DELIVERIES, arrived: Object.keys(drained.arrivals).length, deliveriesPerSecond, ...figures }, null, 2)}\n`);
} finally {
  window?.disconnect();
  await receiver.stop();
  await runtime.close();
  await databases.dropAll();
}
process.exit(0);
