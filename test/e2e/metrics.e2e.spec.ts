import { createServer } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsServer } from '../../src/api/metrics/metricsRoutes.ts';
import { DEFAULT_METRICS_PORT } from '../../src/config/config.ts';
import { spawnServe } from '../support/runProcess.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createTestRuntime, freePort, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const flows = {
  three: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.toUpperCase() };' } },
    { block: { name: 'ask', processor_type: 'llm', prompt: 'Say {{previous_output.text}}' } },
    { block: { name: 'done', processor_type: 'passthrough' } },
  ],
  hello: [{ block: { name: 'a', processor_type: 'passthrough' } }],
};

/** The value of one sample of the Prometheus text format, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('Prometheus metrics at /metrics', () => {
  let server: ScriptedModelServer;
  let receiver: HttpsReceiver;
  let t: TestRuntime;
  let app: FastifyInstance;
  let metricsApp: FastifyInstance;
  let base: string;
  /** The metrics listener's own address. */
  let origin: string;
  let key: string;
  let flowId: string;

  const post = (path: string, body: unknown) =>
    fetch(`${base}/seq/acme/web/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const scrape = async (from = origin) => {
    const answer = await fetch(`${from}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.text();
  };

  beforeAll(async () => {
    server = await startScriptedModelServer();
    receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end('thanks'));
    t = await createTestRuntime('metrics', {
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_LLM_MAX_RETRIES: '0',
    });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ id: flowId } = await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'three').executeTakeFirstOrThrow());
    ({ app, base } = await serveApi(t.runtime));
    metricsApp = await buildMetricsServer(t.runtime.metrics, t.runtime.logger as FastifyBaseLogger);
    origin = await metricsApp.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await metricsApp?.close();
    await t?.close();
    await server?.close();
    await receiver?.close();
  });

  it('counts a three-block run: the request by route and status, the run by flow (id and name) and outcome, each step by processor, the model call and its tokens, the appends', async () => {
    server.script({ content: 'HI', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    expect((await post('three/execute', { message: 'hi' })).status).toBe(200);
    const text = await scrape();
    expect(sample(text, 'seqflow_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/seq/:org/:project/:flow/execute', status_code: '200' })).toBe(1);
    expect(sample(text, 'seqflow_runs_total', { flow_id: flowId, mode: 'sync', outcome: 'completed' })).toBe(1);
    // Named as its URL says it, beside its id.
    expect(sample(text, 'seqflow_runs_total', { flow: 'acme/web/three', mode: 'sync', outcome: 'completed' })).toBe(1);
    for (const processor_type of ['code', 'llm', 'passthrough']) expect(sample(text, 'seqflow_step_duration_seconds_count', { processor_type })).toBe(1);
    expect(sample(text, 'seqflow_model_calls_total', { model: 'gpt-4o-mini', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'seqflow_model_tokens_total', { model: 'gpt-4o-mini', type: 'input' })).toBe(11);
    expect(sample(text, 'seqflow_model_tokens_total', { model: 'gpt-4o-mini', type: 'output' })).toBe(7);
    expect(sample(text, 'seqflow_events_appended_total')).toBeGreaterThanOrEqual(8); // requested, 3 x started/completed, credits, completed
    expect(sample(text, 'seqflow_event_append_duration_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'seqflow_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts a failed model call by its error code, and the run by its outcome', async () => {
    server.script({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    expect((await post('three/execute', { message: 'hi' })).status).toBeGreaterThanOrEqual(400);
    const text = await scrape();
    const failedCalls = text.split('\n').filter((line) => line.startsWith('seqflow_model_calls_total{') && !line.includes('outcome="ok"'));
    expect(failedCalls).toHaveLength(1);
    expect(failedCalls[0]).toMatch(/outcome="[A-Z_]+"\} 1$/);
    expect(sample(text, 'seqflow_runs_total', { flow_id: flowId, mode: 'sync', outcome: 'failed' })).toBe(1);
  });

  it('shows the job backlog, then the claim, the run and the webhook attempt once workers run', async () => {
    const accepted = (await (await post('hello/jobs', { message: 'x', callbackUrl: `${receiver.url}/hook` })).json()) as { executionId: string };
    await t.runtime.projections.catchUp();
    let text = await scrape();
    expect(sample(text, 'seqflow_job_backlog')).toBe(1);
    expect(sample(text, 'seqflow_sandbox_queue_depth')).toBe(0);
    expect(sample(text, 'seqflow_projection_lag_events', { projection: 'jobs' })).toBe(0);

    const workers = await startWorkers(t.runtime);
    try {
      for (let i = 0; i < 400 && !receiver.received.some((r) => r.body.includes(accepted.executionId)); i++) await new Promise((r) => setTimeout(r, 25));
      for (let i = 0; i < 400 && sample((text = await scrape()), 'seqflow_webhook_attempts_total', { outcome: 'succeeded' }) === undefined; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await workers.stop();
    }
    expect(sample(text, 'seqflow_job_claims_total')).toBe(1);
    expect(sample(text, 'seqflow_runs_total', { mode: 'async', outcome: 'completed' })).toBe(1);
    expect(sample(text, 'seqflow_webhook_attempts_total', { outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'seqflow_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' })).toBe(1);
  });

  it('never serves the metrics on the public API port: they name every tenant\'s flows', async () => {
    expect((await fetch(`${base.replace(/\/api\/v1$/, '')}/metrics`)).status).toBe(404);
  });

  it('labels a model it does not know as `other`, and a flow id past the bound as `other`: no label grows without end', async () => {
    const long = 'x'.repeat(300);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'odd', name: 'odd', steps: [{ block: { name: 'ask', processor_type: 'llm', prompt: 'hi', model: long } }] }, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    server.script({ content: 'ok' });
    const answer = await fetch(`${base}/seq/acme/web/odd/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"message":"m"}' });
    expect(answer.status).toBe(200);
    const text = await scrape();
    expect(text).not.toContain(long);
    expect(sample(text, 'seqflow_model_calls_total', { model: 'other', outcome: 'ok' })).toBe(1);
  });

  it('warns and serves on when the default metrics port (127.0.0.1:9464) is taken: a second process on the machine', async () => {
    // Held by the test (or already taken by something else on this machine: the same case for the service).
    const holder = createServer();
    await new Promise<void>((resolve) => holder.once('error', () => resolve()).listen(DEFAULT_METRICS_PORT, '127.0.0.1', () => resolve()));
    const port = await freePort();
    const proc = spawnServe({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), PORT: String(port), SEQFLOW_METRICS_PORT: '' });
    try {
      await until(() => fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false), `the server to answer (${proc.output()})`);
      await until(async () => proc.output().includes('/metrics is not served: 127.0.0.1:9464 is taken'), `the warning (${proc.output()})`);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      holder.close();
    }
  });

  it('refuses to start when a metrics port the operator chose is taken', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const taken = (holder.address() as { port: number }).port;
    const proc = spawnServe({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), PORT: String(await freePort()), SEQFLOW_METRICS_PORT: String(taken) });
    try {
      expect(await proc.exited).not.toBe(0);
      expect(proc.output()).toContain(`Cannot listen on 127.0.0.1:${taken} (EADDRINUSE) for /metrics`);
    } finally {
      holder.close();
    }
  });
});
