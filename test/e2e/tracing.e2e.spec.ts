import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlpReceiver.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const flows = {
  three: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.toUpperCase() };' } },
    { block: { name: 'ask', processor_type: 'llm', prompt: 'Say {{previous_output.text}}' } },
    { block: { name: 'done', processor_type: 'passthrough' } },
  ],
  hello: [{ block: { name: 'a', processor_type: 'passthrough' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
};
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];

const EXECUTE_ROUTE = 'POST /api/v1/seq/:org/:project/:flow/execute';
const JOBS_ROUTE = 'POST /api/v1/seq/:org/:project/:flow/jobs';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** A caller's own trace, as its HTTP client would send it. */
const callerTrace = () => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') });

describe('OpenTelemetry traces (OTLP/HTTP to a collector on loopback)', () => {
  let model: ScriptedModelServer;
  let hooks: HttpsReceiver;
  let collector: OtlpReceiver;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let env: Record<string, string>;

  const post = (path: string, body: unknown, traceparent?: string) =>
    fetch(`${base}/seq/acme/web/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
      body: JSON.stringify(body),
    });

  /** The spans of a trace once `ready` holds of them: each check exports what has ended so far. */
  async function traceOf(traceId: string, ready: (spans: ReceivedSpan[]) => boolean, runtimes: Runtime[] = [t.runtime]) {
    for (let i = 0; i < 400; i++) {
      await Promise.all(runtimes.map((r) => r.tracing.flush()));
      const spans = collector.spans.filter((s) => s.traceId === traceId);
      if (ready(spans)) return spans;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`trace ${traceId} never became complete: ${JSON.stringify(collector.spans.filter((s) => s.traceId === traceId).map((s) => s.name))}`);
  }
  const one = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };
  const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

  beforeAll(async () => {
    model = await startScriptedModelServer();
    hooks = await startHttpsReceiver((_req, res) => res.writeHead(200).end('thanks'));
    collector = await startOtlpReceiver();
    env = {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: hooks.caFile,
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_LLM_MAX_RETRIES: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    };
    t = await createTestRuntime('tracing', env);
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await model?.close();
    await hooks?.close();
    await collector?.close();
  });

  it("makes a three-block run one trace under the caller's: the request, the run, a span per step, and the model call with the GenAI attributes", async () => {
    const caller = callerTrace();
    model.script({ content: 'HI', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    const answer = await post('three/execute', { message: 'hi' }, `00-${caller.traceId}-${caller.spanId}-01`);
    expect(answer.status).toBe(200);
    const { executionId } = (await answer.json()) as { executionId: string };

    const spans = await traceOf(caller.traceId, (s) => s.some((x) => x.name === EXECUTE_ROUTE));
    const request = one(spans, EXECUTE_ROUTE);
    expect(request).toMatchObject({ parentSpanId: caller.spanId, kind: SERVER, service: 'seqflow' });
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/api/v1/seq/:org/:project/:flow/execute', 'http.response.status_code': 200 });

    const run = one(spans, 'invoke_workflow');
    expect(run.parentSpanId).toBe(request.spanId);
    expect(run.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'seqflow.execution_id': executionId, 'seqflow.run.outcome': 'completed' });

    const steps = childrenOf(spans, run).sort((a, b) => Number(a.attributes['seqflow.step.index']) - Number(b.attributes['seqflow.step.index']));
    expect(steps.map((s) => [s.name, s.attributes['seqflow.block.processor_type'], s.attributes['seqflow.step.index']])).toEqual([
      ['step prep', 'code', 0],
      ['step ask', 'llm', 1],
      ['step done', 'passthrough', 2],
    ]);

    const ask = steps.find((s) => s.name === 'step ask')!;
    const [chat, ...others] = childrenOf(spans, ask);
    expect(others).toEqual([]);
    expect(chat).toMatchObject({ name: 'chat gpt-4o-mini', kind: CLIENT });
    expect(chat!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['stop'],
      'server.address': '127.0.0.1',
    });
    expect(chat!.attributes['gen_ai.response.model']).toEqual(expect.any(String));

    // The run's events name the request's span: what another process continues the trace from.
    const events = await t.runtime.eventStore.readStream(`execution-${executionId}`);
    expect(new Set(events.map((e) => e.metadata.traceparent))).toEqual(new Set([`00-${caller.traceId}-${request.spanId}-01`]));
  });

  it('marks a failed model call, its step and its run as errors with the error code', async () => {
    const caller = callerTrace();
    model.script({ status: 401, errorBody: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    expect((await post('three/execute', { message: 'hi' }, `00-${caller.traceId}-${caller.spanId}-01`)).status).toBeGreaterThanOrEqual(400);

    const spans = await traceOf(caller.traceId, (s) => s.some((x) => x.name === EXECUTE_ROUTE));
    for (const name of ['chat gpt-4o-mini', 'step ask', 'invoke_workflow']) {
      const span = one(spans, name);
      expect(span.statusCode, name).toBe(ERROR);
      expect(span.attributes['error.type'], name).toBe('PROVIDER_ERROR');
    }
    expect(one(spans, 'step prep').statusCode).not.toBe(ERROR);
    expect(one(spans, 'invoke_workflow').attributes['seqflow.run.outcome']).toBe('failed');
  });

  it("keeps a resumed run in the run's trace, linking the resuming request", async () => {
    const first = callerTrace();
    const second = callerTrace();
    model.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] }, { content: 'found it' });
    const pause = (await (await post('agent/execute', { message: 'find x', tools }, `00-${first.traceId}-${first.spanId}-01`)).json()) as { executionId: string; toolCallMessages: unknown[] };
    const resumed = await post(
      'agent/execute',
      { executionId: pause.executionId, pausedAtStep: 'agent', toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'call_1', content: '{"hit":true}' }], tools },
      `00-${second.traceId}-${second.spanId}-01`,
    );
    expect(resumed.status).toBe(200);

    const runSpans = await traceOf(first.traceId, (s) => s.filter((x) => x.name === 'invoke_workflow').length === 2);
    const resumeRequest = one(await traceOf(second.traceId, (s) => s.some((x) => x.name === EXECUTE_ROUTE)), EXECUTE_ROUTE);
    const runParts = runSpans.filter((x) => x.name === 'invoke_workflow');
    expect(runParts.map((x) => x.attributes['seqflow.run.outcome']).sort()).toEqual(['completed', 'paused']);
    const paused = runParts.find((x) => x.attributes['seqflow.run.outcome'] === 'paused');
    const finished = runParts.find((x) => x.attributes['seqflow.run.outcome'] === 'completed');
    expect(paused!.links).toEqual([]);
    expect(finished!.parentSpanId).toBe(one(runSpans, EXECUTE_ROUTE).spanId);
    expect(finished!.links).toEqual([{ traceId: second.traceId, spanId: resumeRequest.spanId }]);
    expect(childrenOf(runSpans, paused!).map((x) => [x.name, x.attributes['seqflow.step.paused_for_tools']])).toEqual([['step agent', true]]);
  });

  it('continues the trace of the request that accepted a job in the worker process that runs it, and its webhook attempt too', async () => {
    const answer = await post('hello/jobs', { message: 'x', callbackUrl: `${hooks.url}/hook` });
    expect(answer.status).toBe(202);
    const { executionId } = (await answer.json()) as { executionId: string };
    await t.runtime.projections.catchUp();
    const [requested] = await t.runtime.eventStore.readStream(`execution-${executionId}`, { maxCount: 1 });
    const traceId = requested!.metadata.traceparent!.split('-')[1]!;

    // A second runtime on the same database: it knows of the request only what the log says.
    const worker = await openRuntime(
      loadConfig({ ...env, DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_DEMO: 'false', OTEL_SERVICE_NAME: 'seqflow-worker' }),
      pino({ level: 'silent' }),
    );
    const workers = await startWorkers(worker);
    let spans: ReceivedSpan[];
    try {
      spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'POST') && s.some((x) => x.name === JOBS_ROUTE), [t.runtime, worker]);
    } finally {
      await workers.stop();
      await worker.close();
    }

    const request = one(spans, JOBS_ROUTE);
    expect(request.service).toBe('seqflow');
    const run = one(spans, 'invoke_workflow');
    expect(run).toMatchObject({ service: 'seqflow-worker', parentSpanId: request.spanId });
    expect(run.attributes['seqflow.execution_id']).toBe(executionId);
    expect(childrenOf(spans, run).map((s) => s.name)).toEqual(['step a']);

    const attempt = one(spans, 'POST');
    expect(attempt).toMatchObject({ service: 'seqflow-worker', kind: CLIENT, parentSpanId: request.spanId });
    expect(attempt.attributes).toMatchObject({ 'seqflow.webhook.event': 'flow.completed', 'seqflow.delivery.attempt': 1, 'http.response.status_code': 200, 'url.full': `${hooks.url}/hook` });
  });
});

describe('OpenTelemetry traces when no endpoint is set', () => {
  it('records nothing, and the events carry no trace context', async () => {
    const t = await createTestRuntime('tracing-off');
    const key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    const { app, base } = await serveApi(t.runtime);
    try {
      expect(t.runtime.tracing.enabled).toBe(false);
      const answer = await fetch(`${base}/seq/acme/web/hello/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${callerTrace().traceId}-${callerTrace().spanId}-01` },
        body: JSON.stringify({ message: 'x' }),
      });
      expect(answer.status).toBe(200);
      const { executionId } = (await answer.json()) as { executionId: string };
      const events = await t.runtime.eventStore.readStream(`execution-${executionId}`);
      expect(events.length).toBeGreaterThan(0);
      expect(events.filter((e) => e.metadata.traceparent !== undefined)).toEqual([]);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
