import { execFileSync, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Agent, request } from 'undici';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { acceptJob } from '../src/execution/flowEngine.ts';
import { openRuntime, type Runtime } from '../src/runtime/runtime.ts';
import { handleCommand } from '../src/commands/commandHandler.ts';
import { deliveryIdFor } from '../src/commands/deliveryCommands.ts';
import { delivery } from '../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../src/domain/webhooks/deliveryEvents.ts';
import { webhookPayload } from '../src/domain/webhooks/webhookPayload.ts';
import { startWorkers } from '../src/runtime/workerRole.ts';
import { percentile } from './percentile.ts';
import { statementsDuring } from './queryCounter.ts';

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const CONNECTIONS = 32;
const principal = { principal: { kind: 'system' as const, id: 'bench' } };

interface Snapshot {
  received: number;
  lastBodyBytes: number;
  arrivals: Record<string, number>;
}

/**
 * Webhook deliveries to a local HTTPS receiver in a process of its own (self-signed, trusted through
 * the test-only CA setting): deliveries per second, compared in the same run with a plain keep-alive
 * undici client posting bodies of the same size to the same receiver from 32 connections, and the
 * time from each job's terminal event to its first attempt arriving.
 */
export async function benchDeliveries(databaseUrl: string, jobs = 2000) {
  const receiver = await startBenchReceiver();
  try {
    const ours = await seqflowDeliveries(databaseUrl, receiver.hook, receiver.certFile, jobs, receiver.ask);
    await receiver.ask('reset');
    const plain = await plainClient(receiver.hook, readFileSync(receiver.certFile), jobs, ours.bodyBytes, receiver.ask);
    return { jobs, ours: ours.figures, plainUndiciClient: plain, oursToPlainClient: round(ours.figures.deliveriesPerSecond / plain.deliveriesPerSecond, 2) };
  } finally {
    await receiver.stop();
  }
}

/** The HTTPS receiver (receiverProcess.ts) in a process of its own, on a fresh self-signed certificate for 127.0.0.1. */
export async function startBenchReceiver() {
  const dir = mkdtempSync(path.join(tmpdir(), 'seqflow-bench-tls-'));
  const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const receiver = fork(new URL('./receiverProcess.ts', import.meta.url), [keyFile, certFile], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ask = <T>(type: string) =>
    new Promise<T>((resolve) => {
      receiver.once('message', (m) => resolve(m as T));
      receiver.send({ type });
    });
  const { port } = await new Promise<{ port: number }>((r) => receiver.once('message', (m) => r(m as { port: number })));
  return {
    hook: `https://127.0.0.1:${port}/hook`,
    certFile,
    ask,
    /** Waits until the receiver has seen `count` executions (5 min at most); its last snapshot. */
    arrivalsOf: (count: number) => arrivalsOf(count, ask),
    async stop() {
      const exited = new Promise((r) => receiver.once('exit', r));
      receiver.send({ type: 'stop' });
      await exited;
    },
  };
}

/** Waits until the receiver has seen `count` executions (5 min at most); its last snapshot. */
async function arrivalsOf(count: number, ask: <T>(type: string) => Promise<T>) {
  const deadline = Date.now() + 300_000;
  let snapshot = await ask<Snapshot>('snapshot');
  while (Object.keys(snapshot.arrivals).length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    snapshot = await ask<Snapshot>('snapshot');
  }
  return snapshot;
}

/**
 * Two figures. Throughput: `jobs` deliveries already created (and projected) while no dispatcher
 * ran, drained by one dispatcher from its start to the last arrival. Latency: jobs accepted at a
 * steady 50/s with the workers running, from each job's terminal event to its first attempt.
 */
async function seqflowDeliveries(databaseUrl: string, hook: string, certFile: string, jobs: number, ask: <T>(type: string) => Promise<T>) {
  const runtime = await openRuntime(
    loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: certFile, SEQFLOW_JOB_CONCURRENCY: '16', LOG_LEVEL: 'silent' }),
    pino({ level: 'silent' }),
  );
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  const project = await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'f', name: 'f', steps: [{ block: { name: 'pass', processor_type: 'passthrough' } }] }, production: true }, principal);
  await runtime.projections.catchUp();
  const flow = await runtime.flows.findExecutableFlow({ org: 'bench', project: 'bench', flow: 'f' }, project.id);
  try {
    // Throughput: a backlog of deliveries, then a dispatcher.
    await createBacklog(runtime, flow, hook, jobs);
    await runtime.projections.catchUp();
    const drainStart = Date.now();
    let workers = await startWorkers(runtime);
    // The statements per delivery: the dispatcher's, the subscribers' and the projections' while it drains.
    const { result: drained, perUnit: statementsPerDelivery } = await statementsDuring(jobs, () => arrivalsOf(jobs, ask));
    const last = Math.max(...Object.values(drained.arrivals));
    await workers.stop();
    await ask('reset');

    // Latency: jobs at a steady rate, each ending in one delivery.
    workers = await startWorkers(runtime);
    const executions: string[] = [];
    const steady = 300;
    for (let i = 0; i < steady; i++) {
      const executionId = randomUUID();
      executions.push(executionId);
      void acceptJob(runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: principal.principal, callback: { url: hook, events: ['flow.completed', 'flow.failed'] } });
      await new Promise((r) => setTimeout(r, 20));
    }
    const snapshot = await arrivalsOf(steady, ask);
    await workers.stop();
    const lags: number[] = [];
    for (const executionId of executions) {
      const terminal = (await runtime.eventStore.readStream(`execution-${executionId}`)).find((e) => e.type === 'ExecutionCompleted');
      const arrived = snapshot.arrivals[executionId];
      if (terminal && arrived) lags.push(arrived - Date.parse(terminal.metadata.occurredAt));
    }
    lags.sort((a, b) => a - b);
    return {
      bodyBytes: snapshot.lastBodyBytes,
      figures: {
        backlogDrained: Object.keys(drained.arrivals).length,
        deliveriesPerSecond: round(jobs / Math.max(0.001, (last - drainStart) / 1000)),
        statementsPerDelivery,
        steadyJobsPerSecond: 50,
        terminalEventToFirstAttempt: { deliveries: lags.length, p50Ms: round(percentile(lags, 50)), p99Ms: round(percentile(lags, 99)) },
      },
    };
  } finally {
    await runtime.close();
  }
}

/** `count` deliveries of `flow.completed` for runs that never ran: DeliveryCreated as the delivery creator writes it. */
export async function createBacklog(runtime: Runtime, flow: { flowId: string; organizationId: string }, hook: string, count: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < count) {
        const executionId = randomUUID();
        const deliveryId = deliveryIdFor(executionId, 'flow.completed');
        const { payload, body } = webhookPayload({ deliveryId, executionId, flowId: flow.flowId, organizationId: flow.organizationId, durationMs: 3, occurredAt: new Date().toISOString() }, { event: 'flow.completed', result: { message: 'go' } }, `/api/v1/jobs/${executionId}`);
        await handleCommand(
          runtime.commands,
          deliveryStream(deliveryId),
          delivery,
          { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: flow.organizationId, executionId, flowId: flow.flowId, event: 'flow.completed', url: hook, body, truncated: payload.truncated } } },
          principal,
        );
      }
    }),
  );
}

/** What delivery costs without a service: keep-alive POSTs of the same size from 32 connections. */
async function plainClient(hook: string, ca: Buffer, posts: number, bodyBytes: number, ask: <T>(type: string) => Promise<T>) {
  const agent = new Agent({ connections: CONNECTIONS, connect: { ca } });
  const padding = 'x'.repeat(Math.max(0, bodyBytes - 80));
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < posts) {
        const t0 = performance.now();
        const response = await request(hook, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ executionId: randomUUID(), padding }) });
        await response.body.dump();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  const snapshot = await ask<Snapshot>('snapshot');
  latencies.sort((a, b) => a - b);
  return { delivered: snapshot.received, deliveriesPerSecond: round(posts / seconds), p99Ms: round(percentile(latencies, 99)) };
}
