import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { type JobRunner, createJobRunner } from '../../src/workers/jobRunner.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flows: Record<string, unknown[]> = {
  pipeline: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' } },
    { block: { name: 'answer', processor_type: 'llm', prompt: 'Answer {{previous_output.text}}', output_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false } } },
  ],
  textual: [{ block: { name: 'say', processor_type: 'llm', prompt: '{{message}}' } }],
  broken: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("broken job");' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
};

interface JobAnswer {
  executionId: string;
  status: string;
  flowId: string;
  blockCount?: number;
  result?: unknown;
  failureReason?: string;
  errorCode?: string;
  errorMessage?: string;
  startedAt?: string | null;
  completedAt?: string | null;
  detail: { code: string; message: string };
}

describe('/jobs: asynchronous runs, polled', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let otherKey: string;
  let brokeKey: string;
  const runners: JobRunner[] = [];

  const call = async (method: string, path: string, body?: unknown, apiKey = key) => {
    const response = await fetch(`${base}/seq/${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as JobAnswer };
  };
  const submit = (flow: string, body: unknown, apiKey = key, org = 'acme') => call('POST', `${org}/web/${flow}/jobs`, body, apiKey);
  const poll = async (flow: string, executionId: string, apiKey = key, org = 'acme') => {
    for (let i = 0; i < 200; i++) {
      const answer = await call('GET', `${org}/web/${flow}/jobs/${executionId}`, undefined, apiKey);
      if (answer.body.status === 'completed' || answer.body.status === 'failed') return answer;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('job did not finish');
  };

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('jobs', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    const deps = t.runtime.commands;
    await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'other', name: 'Other' }, testPrincipal);
    for (const [slug, steps] of Object.entries(flows)) await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    key = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    otherKey = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'other', environment: 'test' }, testPrincipal)).key;
    await createOrganization(deps, { slug: 'broke', name: 'Broke', initialCredits: 0 }, testPrincipal);
    await createProject(deps, { organizationSlug: 'broke', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'broke', projectSlug: 'web', file: { slug: 'pipeline', name: 'p', steps: flows.pipeline }, production: true }, testPrincipal);
    brokeKey = (await createApiKey(deps, { organizationSlug: 'broke', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    // Two runners, as two worker processes would run.
    for (const workerId of ['worker-a', 'worker-b']) {
      const runner = createJobRunner({ db: t.runtime.db, engine: t.runtime.execution, logger: t.runtime.logger, leaseMs: 2000, concurrency: 4, workerId, pollMs: 20 });
      runner.start();
      runners.push(runner);
    }
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await app?.close();
    await t?.close();
    await server?.close();
  });
  beforeEach(() => {
    server.reset();
    server.respond = () => ({ content: { answer: 'forty-two' } });
  });

  it('accepts at once, answers a poll right away (never 404), and returns the result when a worker has run it', async () => {
    const accepted = await submit('pipeline', { message: ' question ' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ executionId: expect.any(String), status: 'started', flowId: expect.any(String), blockCount: 2 });
    const first = await call('GET', `acme/web/pipeline/jobs/${accepted.body.executionId}`);
    expect(first.status).toBe(200);
    expect(['started', 'running', 'completed']).toContain(first.body.status);

    const done = await poll('pipeline', accepted.body.executionId);
    expect(done.body).toMatchObject({ status: 'completed', result: { answer: 'forty-two' }, flowId: accepted.body.flowId, startedAt: expect.any(String), completedAt: expect.any(String) });
    const types = (await t.runtime.eventStore.readStream(`execution-${accepted.body.executionId}`)).map((e) => e.type);
    expect(types[0]).toBe('ExecutionRequested');
    expect(types[1]).toBe('JobClaimed');
    expect(types.at(-1)).toBe('ExecutionCompleted');
    expect(server.requests[0]!.body.messages[0]!.content).toBe('Answer question');
  });

  it('polls a text reply as the result object {text}, and a JSON object reply as that object', async () => {
    server.respond = () => ({ content: 'plain words' });
    expect((await poll('textual', (await submit('textual', { message: 'x' })).body.executionId)).body).toMatchObject({ status: 'completed', result: { text: 'plain words' } });
    server.respond = () => ({ content: '{"tool_results": []}' });
    expect((await poll('textual', (await submit('textual', { message: 'x' })).body.executionId)).body).toMatchObject({ status: 'completed', result: { tool_results: [] } });
  });

  it('reports a failed job with its failure reason and message', async () => {
    const broken = await poll('broken', (await submit('broken', { message: 'x' })).body.executionId);
    expect(broken.body).toMatchObject({ status: 'failed', failureReason: 'error', errorCode: 'CODE_BLOCK_FAILED', errorMessage: expect.stringContaining('broken job') });
    const accepted = await submit('pipeline', { message: 'x' }, brokeKey, 'broke');
    const broke = await poll('pipeline', accepted.body.executionId, brokeKey, 'broke');
    expect(broke.body).toMatchObject({ status: 'failed', failureReason: 'credits_exhausted' });
  });

  it('runs every job exactly once with two runners competing', async () => {
    const accepted = await Promise.all(Array.from({ length: 20 }, (_, i) => submit('pipeline', { message: `job ${i}` })));
    const done = await Promise.all(accepted.map((a) => poll('pipeline', a.body.executionId)));
    expect(done.every((d) => d.body.status === 'completed')).toBe(true);
    for (const a of accepted) {
      const types = (await t.runtime.eventStore.readStream(`execution-${a.body.executionId}`)).map((e) => e.type);
      expect(types.filter((type) => type === 'JobClaimed')).toHaveLength(1);
      expect(types.filter((type) => type === 'ExecutionCompleted')).toHaveLength(1);
    }
    expect(server.requests).toHaveLength(20);
  });

  it.each([
    ['tools', { message: 'x', tools: [{ type: 'function', function: { name: 'f' } }] }, 405, 'TOOLS_REQUIRE_SYNC_EXECUTE'],
    ['a resume', { executionId: 'e', pausedAtStep: 'agent', toolCallMessages: [] }, 400, 'INVALID_RESUME'],
    ['an http callback', { message: 'x', callbackUrl: 'http://93.184.216.34/hook' }, 400, 'CALLBACK_URL_INVALID'],
    ['a callback inside the network', { message: 'x', callbackUrl: 'https://169.254.169.254/hook' }, 400, 'CALLBACK_URL_INVALID'],
    ['a callback at an IPv4-compatible IPv6 address', { message: 'x', callbackUrl: 'https://[::a9fe:a9fe]/hook' }, 400, 'CALLBACK_URL_INVALID'],
    ['a callback at ::127.0.0.2', { message: 'x', callbackUrl: 'https://[::127.0.0.2]/hook' }, 400, 'CALLBACK_URL_INVALID'],
    ['a callback with credentials', { message: 'x', callbackUrl: 'https://user:pass@93.184.216.34/hook?token=t' }, 400, 'CALLBACK_URL_INVALID'],
    ['a callback with a user name only', { message: 'x', callbackUrl: 'https://user@93.184.216.34/hook' }, 400, 'CALLBACK_URL_INVALID'],
    ['unknown callback events', { message: 'x', callbackUrl: 'https://93.184.216.34/hook', callbackEvents: ['flow.started'] }, 400, 'CALLBACK_EVENTS_INVALID'],
    ['callback events without a URL', { message: 'x', callbackEvents: ['flow.failed'] }, 400, 'CALLBACK_EVENTS_INVALID'],
    ['too many attachments', { message: 'x', attachments: Array.from({ length: 11 }, () => ({ kind: 'url', url: 'https://93.184.216.34/a.png', mime_type: 'image/png' })) }, 400, 'ATTACHMENT_LIMIT_EXCEEDED'],
    ['no message', {}, 422, 'REQUEST_INVALID'],
  ])('refuses %s at once', async (_label, body, status, code) => {
    const answer = await submit('agent', body);
    expect([answer.status, answer.body.detail.code]).toEqual([status, code]);
  });

  it('accepts a public https callback with a subset of events', async () => {
    const accepted = await submit('pipeline', { message: 'x', callbackUrl: 'https://93.184.216.34/hook', callbackEvents: ['flow.failed'] });
    expect(accepted.status).toBe(202);
    const requested = (await t.runtime.eventStore.readStream(`execution-${accepted.body.executionId}`))[0]!;
    expect(requested.data).toMatchObject({ mode: 'async', callbackUrl: 'https://93.184.216.34/hook', callbackEvents: ['flow.failed'] });
    await poll('pipeline', accepted.body.executionId);
  });

  it("answers 404 for an unknown job, and for another project's key", async () => {
    expect((await call('GET', 'acme/web/pipeline/jobs/00000000-0000-4000-8000-000000000000')).body.detail.code).toBe('EXECUTION_NOT_FOUND');
    const accepted = await submit('pipeline', { message: 'x' });
    const foreign = await call('GET', `acme/web/pipeline/jobs/${accepted.body.executionId}`, undefined, otherKey);
    expect(foreign.status).toBe(404);
    expect((await call('GET', `acme/web/broken/jobs/${accepted.body.executionId}`)).status).toBe(404);
    await poll('pipeline', accepted.body.executionId);
  });
});
