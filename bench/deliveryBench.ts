import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { acceptJob } from '../src/execution/flowEngine.ts';
import { findExecutableFlow } from '../src/queries/flowQueries.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startWorkers } from '../src/workers/workerRole.ts';
import { percentile } from './percentile.ts';

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/**
 * Webhook deliveries to a local HTTPS receiver (self-signed, trusted through the test-only CA
 * setting): deliveries per second, and the time from each job's terminal event to its first
 * delivery attempt arriving at the receiver.
 */
export async function benchDeliveries(databaseUrl: string, jobs = 300) {
  const dir = mkdtempSync(path.join(tmpdir(), 'seqflow-bench-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const arrivals = new Map<string, number>();
  const receiver = createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { executionId } = JSON.parse(body) as { executionId: string };
      if (!arrivals.has(executionId)) arrivals.set(executionId, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hook = `https://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const runtime = await openRuntime(
    loadConfig({
      DATABASE_URL: databaseUrl,
      SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: path.join(dir, 'cert.pem'),
      SEQFLOW_JOB_CONCURRENCY: '16',
      LOG_LEVEL: 'silent',
    }),
    pino({ level: 'silent' }),
  );
  const principal = { principal: { kind: 'system' as const, id: 'bench' } };
  await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
  const project = await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(runtime.commands, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'f', name: 'f', steps: [{ block: { name: 'pass', processor_type: 'passthrough' } }] }, production: true }, principal);
  await runtime.projections.catchUp();
  const flow = await findExecutableFlow(runtime.db, { org: 'bench', project: 'bench', flow: 'f' }, project.id);
  const workers = await startWorkers(runtime);
  try {
    const executions = Array.from({ length: jobs }, () => randomUUID());
    await Promise.all(
      executions.map((executionId) =>
        acceptJob(runtime.execution, { executionId, ...flow, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: principal.principal, callback: { url: hook, events: ['flow.completed', 'flow.failed'] } }),
      ),
    );
    const deadline = Date.now() + 120_000;
    while (arrivals.size < jobs && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const lags: number[] = [];
    for (const executionId of executions) {
      const terminal = (await runtime.eventStore.readStream(`execution-${executionId}`)).find((e) => e.type === 'ExecutionCompleted');
      const arrived = arrivals.get(executionId);
      if (terminal && arrived) lags.push(arrived - Date.parse(terminal.metadata.occurredAt));
    }
    lags.sort((a, b) => a - b);
    const times = [...arrivals.values()].sort((a, b) => a - b);
    const spanSeconds = Math.max(0.001, (times.at(-1)! - times[0]!) / 1000);
    return {
      jobs,
      delivered: arrivals.size,
      deliveriesPerSecond: round(arrivals.size / spanSeconds),
      terminalEventToFirstAttempt: { p50Ms: round(percentile(lags, 50)), p99Ms: round(percentile(lags, 99)) },
    };
  } finally {
    await workers.stop();
    await runtime.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}
