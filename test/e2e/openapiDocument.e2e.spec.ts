import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/api/rest/errorStatus.ts';
import { openApiConformance } from '../support/openapiConformance.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const flows = {
  hello: [{ block: { name: 'a', processor_type: 'passthrough' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
  approve: [{ block: { name: 'ok', processor_type: 'approval', processor_config: { approval: { text: 'Go ahead with {{message}}?', approvers: { roles: ['member'] } } } } }],
  admins: [{ block: { name: 'ok', processor_type: 'approval', processor_config: { approval: { text: 'Go?', approvers: { roles: ['admin'] } } } } }],
};
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];

/** The REST API the spec and the README describe: every one of these must be in the document. */
const routes = [
  'get /api/v1/health',
  'get /api/v1/organizations/{org_id}/webhooks/secret',
  'post /api/v1/organizations/{org_id}/webhooks/secret/rotate',
  'get /api/v1/organizations/{org_id}/webhooks/deliveries',
  'get /api/v1/organizations/{org_id}/assistants',
  'delete /api/v1/organizations/{org_id}/assistants/{client_id}',
  'get /api/v1/seq/{org}/{project}/{flow}',
  'post /api/v1/seq/{org}/{project}/{flow}/execute',
  'post /api/v1/seq/{org}/{project}/{flow}/step',
  'get /api/v1/seq/{org}/{project}/{flow}/step/{executionId}',
  'post /api/v1/seq/{org}/{project}/{flow}/jobs',
  'get /api/v1/seq/{org}/{project}/{flow}/jobs',
  'get /api/v1/seq/{org}/{project}/{flow}/jobs/{executionId}',
  'post /api/v1/seq/{org}/{project}/{flow}/jobs/{executionId}/cancel',
  'get /api/v1/seq/{org}/{project}/{flow}/runs',
  'delete /api/v1/seq/{org}/{project}/{flow}/runs/{executionId}/data',
  'post /api/v1/seq/{org}/{project}/{flow}/runs/{executionId}/approvals/{stepId}',
];

type Document = Parameters<typeof openApiConformance>[0] & { openapi: string; webhooks: Record<string, unknown>; info: { version: string } };

describe('the OpenAPI document at /api/v1/openapi.json', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let orgId: string;
  let document: Document;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('openapi', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ id: orgId } = await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow());
    ({ app, base } = await serveApi(t.runtime));
    const answer = await fetch(`${base}/openapi.json`);
    expect(answer.status).toBe(200);
    document = (await answer.json()) as Document;
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('is a valid OpenAPI 3.1 document with every route of the API, and nothing internal', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(documented.sort()).toEqual([...routes].sort());
  });

  it('gives each operation an operationId and a summary, and lists only the error statuses it can answer, each naming its codes', () => {
    type Operation = { operationId?: string; summary?: string; responses: Record<string, { description?: string; content?: Record<string, { schema: { properties?: { detail?: { properties?: { code?: { enum?: string[] } } } } } }> }> };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods)) as unknown as Operation[];
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.every((operation) => typeof operation.summary === 'string' && operation.summary.length > 0)).toBe(true);
    for (const operation of operations) {
      for (const [status, answer] of Object.entries(operation.responses).filter(([status]) => Number(status) >= 400 && operation.operationId !== 'getHealth')) {
        const codes = answer.description!.split(', ');
        // Each code under its own status, and the body's code is one of them.
        for (const code of codes) expect(errorStatus[code as keyof typeof errorStatus], `${operation.operationId} ${code}`).toBe(Number(status));
        expect(answer.content!['application/json']!.schema.properties!.detail!.properties!.code!.enum!.sort()).toEqual([...codes].sort());
      }
    }
    const byId = (id: string) => operations.find((operation) => operation.operationId === id)!.responses;
    expect(Object.keys(byId('getHealth')).sort()).toEqual(['200', '400', '408', '414', '431', '500', '503']);
    expect(byId('executeFlow')['402']?.description).toBe('CREDITS_EXHAUSTED');
    expect(byId('getJob')['402']).toBeUndefined();
    expect(byId('getJob')['404']?.description).toBe('FLOW_NOT_FOUND, EXECUTION_NOT_FOUND');
    expect(byId('rotateWebhookSecret')['403']?.description).toBe('FORBIDDEN');
  });

  it('names the public URL as its server, and the webhook payloads', () => {
    expect((document as unknown as { servers: unknown }).servers).toEqual([{ url: t.runtime.config.publicUrl }]);
    expect(Object.keys(document.webhooks).sort()).toEqual(['flow.completed', 'flow.failed', 'flow.waiting']);
    expect(JSON.stringify(document.webhooks['flow.completed'])).toContain('#/components/schemas/WebhookPayload');
    expect(JSON.stringify(document.components)).toContain('deliveryId');
  });

  it('describes every answer the server gives: successes and errors on each route match the documented schema for their status', async () => {
    const conformance = openApiConformance(document);
    const problems: string[] = [];
    const streamed: string[] = [];
    const flowPath = '/api/v1/seq/{org}/{project}/{flow}';
    const call = async (method: string, template: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const type = answer.headers.get('content-type') ?? '';
      const text = await answer.text();
      const parsed: unknown = type.startsWith('application/json') ? JSON.parse(text) : text;
      problems.push(...conformance.problems(method, template, answer.status, parsed, type.split(';')[0]));
      // A /step stream: each event against the StepEvent component.
      if (type.startsWith('text/event-stream')) {
        for (const block of text.split('\n\n').filter((b) => b.includes('data: '))) {
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as unknown;
          problems.push(...conformance.problemsAgainst('StepEvent', { event, data }));
          streamed.push(event!);
        }
      }
      return { status: answer.status, body: parsed as Record<string, unknown> };
    };

    await call('GET', '/api/v1/health', '/health');
    await call('GET', flowPath, '/seq/acme/web/hello');
    await call('GET', flowPath, '/seq/acme/web/nope');
    await call('GET', flowPath, '/seq/acme/web/hello', undefined, { authorization: 'Bearer sk_wrong' });

    const completed = await call('POST', `${flowPath}/execute`, '/seq/acme/web/hello/execute', { message: 'hi' }, { 'idempotency-key': 'k-1' });
    expect(completed.status).toBe(200);
    await call('POST', `${flowPath}/execute`, '/seq/acme/web/hello/execute', { message: 'other' }, { 'idempotency-key': 'k-1' }); // 422 reused
    await call('POST', `${flowPath}/execute`, '/seq/acme/web/hello/execute', { mesage: 'typo' }); // 400
    model.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] }, { content: 'found' });
    const paused = await call('POST', `${flowPath}/execute`, '/seq/acme/web/agent/execute', { message: 'find', tools });
    expect(paused.body.status).toBe('tool_calls_required');
    const resumed = await call('POST', `${flowPath}/execute`, '/seq/acme/web/agent/execute', {
      executionId: paused.body.executionId,
      pausedAtStep: 'agent',
      toolCallMessages: [...(paused.body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'call_1', content: '{}' }],
      tools,
    });
    expect(resumed.status).toBe(200);

    const approvalPath = `${flowPath}/runs/{executionId}/approvals/{stepId}`;
    const waiting = await call('POST', `${flowPath}/execute`, '/seq/acme/web/approve/execute', { message: 'the refund' });
    expect(waiting.status).toBe(202);
    await call('POST', `${flowPath}/step`, '/seq/acme/web/approve/step', { message: 'hi' });
    const decided = await call('POST', approvalPath, `/seq/acme/web/approve/runs/${String(waiting.body.executionId)}/approvals/ok`, { decision: 'approve', comment: 'fine' });
    expect(decided.status).toBe(200);
    await call('POST', approvalPath, `/seq/acme/web/approve/runs/${String(waiting.body.executionId)}/approvals/ok`, { decision: 'reject' }); // 409: decided
    await call('POST', approvalPath, `/seq/acme/web/approve/runs/${String(waiting.body.executionId)}/approvals/ok`, { decision: 'perhaps' }); // 422
    const forAdmins = await call('POST', `${flowPath}/execute`, '/seq/acme/web/admins/execute', { message: 'x' });
    await call('POST', approvalPath, `/seq/acme/web/admins/runs/${String(forAdmins.body.executionId)}/approvals/ok`, { decision: 'approve' }); // 403: an API key is a member
    await call('POST', approvalPath, `/seq/acme/web/nope/runs/x/approvals/ok`, { decision: 'approve' }); // 404

    const stepped = await call('POST', `${flowPath}/step`, '/seq/acme/web/hello/step', { message: 'hi' });
    expect(stepped.status).toBe(200);
    await call('GET', `${flowPath}/step/{executionId}`, `/seq/acme/web/hello/step/${String(completed.body.executionId)}`, undefined, { 'last-event-id': '0' });
    await call('POST', `${flowPath}/step`, '/seq/acme/web/hello/step', { message: 'hi', tools: 'no' });

    const job = await call('POST', `${flowPath}/jobs`, '/seq/acme/web/hello/jobs', { message: 'later' });
    expect(job.status).toBe(202);
    await call('POST', `${flowPath}/jobs`, '/seq/acme/web/hello/jobs', { message: 'x', callbackUrl: 'http://insecure.example/hook' });
    await call('GET', `${flowPath}/jobs/{executionId}`, `/seq/acme/web/hello/jobs/${String(job.body.executionId)}`);
    await call('GET', `${flowPath}/jobs/{executionId}`, '/seq/acme/web/hello/jobs/00000000-0000-4000-8000-000000000000');
    const cancelled = await call('POST', `${flowPath}/jobs/{executionId}/cancel`, `/seq/acme/web/hello/jobs/${String(job.body.executionId)}/cancel`, { reason: 'no longer needed' });
    expect(cancelled.body.status).toBe('failed');
    await call('POST', `${flowPath}/jobs/{executionId}/cancel`, `/seq/acme/web/hello/jobs/${String(job.body.executionId)}/cancel`, {}); // 409: ended
    await t.runtime.projections.catchUp();
    await call('GET', `${flowPath}/jobs`, '/seq/acme/web/hello/jobs?limit=1');
    await call('GET', `${flowPath}/jobs`, '/seq/acme/web/hello/jobs?status=lost');
    await call('GET', `${flowPath}/runs`, '/seq/acme/web/hello/runs?mode=sync,step');
    const erased = await call('DELETE', `${flowPath}/runs/{executionId}/data`, `/seq/acme/web/hello/runs/${String(completed.body.executionId)}/data?reason=audit`);
    expect(erased.body).toMatchObject({ erasedNow: true });
    await call('DELETE', `${flowPath}/runs/{executionId}/data`, '/seq/acme/web/hello/runs/00000000-0000-4000-8000-000000000000/data'); // 404
    await t.runtime.projections.catchUp();
    await call('GET', `${flowPath}/jobs/{executionId}`, `/seq/acme/web/hello/jobs/${String(job.body.executionId)}`);
    await call('GET', `${flowPath}/runs`, '/seq/acme/web/hello/runs');

    await call('GET', '/api/v1/organizations/{org_id}/webhooks/secret', `/organizations/${orgId}/webhooks/secret`);
    await call('GET', '/api/v1/organizations/{org_id}/webhooks/deliveries', `/organizations/${orgId}/webhooks/deliveries?limit=5`);
    await call('POST', '/api/v1/organizations/{org_id}/webhooks/secret/rotate', `/organizations/${orgId}/webhooks/secret/rotate`); // 403: an API key is not an admin
    await call('GET', '/api/v1/organizations/{org_id}/assistants', `/organizations/${orgId}/assistants`); // 403: admins only
    await call('DELETE', '/api/v1/organizations/{org_id}/assistants/{client_id}', `/organizations/${orgId}/assistants/some-client`); // 403

    expect(problems).toEqual([]);
    expect(new Set(streamed)).toEqual(new Set(['started', 'step_started', 'step_completed', 'completed', 'step_waiting_for_approval']));
    // Each route answered at least once, and the errors above under their own statuses.
    const checked = conformance.checked();
    for (const route of routes) expect(checked.some((c) => `${c.split(' ')[0]!.toLowerCase()} ${c.split(' ')[1]}` === route), route).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 422]) expect(checked.some((c) => c.endsWith(` ${status}`)), String(status)).toBe(true);
  });
});
