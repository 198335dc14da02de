import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, freePort, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a session walks results of many shapes
type Structured = Record<string, any>;

/** The most calls the task may take: what a model needs when no tool forces a detour (issue 38 counted 32 before). */
const CALL_BUDGET = 20;

/**
 * A model's session, replayed request by request through the SDK's client: build a ticket-triage
 * flow (an llm block that classifies, a code block that routes), test it, promote it behind a gate,
 * record production runs, change the routing, test and backtest the change, and promote it. Each
 * argument is what the tool descriptions and earlier answers give the model, nothing from outside.
 */
describe('an assistant builds, tests, backtests and promotes a ticket-triage flow in at most 20 calls, none an error', () => {
  let model: ScriptedModelServer;
  let issuer: JwksIssuer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let client: Client;
  const calls: { name: string; isError: boolean }[] = [];

  /** One request of the session: a tool call that must succeed, counted. */
  const tool = async (name: string, args: Record<string, unknown>): Promise<Structured> => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    calls.push({ name, isError: result.isError === true });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Structured;
  };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    // The classifier, as a model would answer: by what the ticket says.
    model.respond = (request) => {
      const ticket = JSON.stringify(request.body.messages);
      const reply = /down|outage/i.test(ticket) ? { category: 'outage', urgency: 'high' } : /refund|invoice/i.test(ticket) ? { category: 'billing', urgency: 'low' } : { category: 'other', urgency: 'low' };
      return { content: reply };
    };
    issuer = await startJwksIssuer();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    t = await createTestRuntime('assistant_session', {
      OAUTH_ISSUER: issuer.issuer,
      OAUTH_JWKS_URL: issuer.jwksUrl,
      SEQFLOW_PUBLIC_URL: origin,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
    });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await addMember(t.runtime.commands, { organizationSlug: 'acme', userSubject: 'alice', role: 'member' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'support', name: 'Support' }, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app } = await serveApi(t.runtime, port));
    const mcpUrl = `${origin}/api/v1/mcp/`;
    client = new Client({ name: 'replayed-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${await issuer.sign({ sub: 'alice', aud: mcpUrl, clientId: 'claude-code' })}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await t?.close();
    await issuer?.close();
    await model?.close();
  });

  it('takes the calls the task needs and no more', async () => {
    // Where to build, and how: the project by its slugs, and the promotion procedure the server states.
    const { projects } = await tool('list_projects', {});
    expect(projects.map((p: { slug: string }) => p.slug)).toContain('support');
    const { flow_id } = await tool('create_flow', { project_id: 'acme/support', name: 'Ticket triage', slug: 'ticket-triage' });
    await tool('set_gate', { flow_id, tests_required: true, backtest_max_changed_percent: 60 });

    // Two blocks, each whole in one call: the classifier with its reply's schema, the router on the code contract the tool states.
    const classify = await tool('add_block', {
      flow_id,
      name: 'classify',
      processor_type: 'llm',
      prompt: 'Classify this support ticket: {{message}}',
      output_schema: { type: 'object', properties: { category: { type: 'string' }, urgency: { type: 'string', enum: ['low', 'high'] } }, required: ['category', 'urgency'], additionalProperties: false },
    });
    const route = await tool('add_block', {
      flow_id,
      name: 'route',
      processor_type: 'code',
      target_id: classify.step_id,
      code: 'const t = input.previous_output;\nreturn { category: t.category, queue: t.urgency === "high" ? "oncall" : t.category };',
    });

    // The suite in one call, checked before publishing.
    const suite = await tool('create_test_case', {
      flow_id,
      cases: [
        { name: 'an outage pages on-call', input: { message: 'The site is down since 9am' }, assertions: [{ type: 'path_equals', path: 'queue', value: 'oncall' }] },
        { name: 'a refund is billing', input: { message: 'Please refund my last invoice' }, assertions: [{ type: 'path_equals', path: 'category', value: 'billing' }] },
      ],
    });
    expect(suite.test_cases).toHaveLength(2);
    expect(await tool('validate_draft', { flow_id })).toMatchObject({ publishable: true, problems: [] });
    const v1 = await tool('publish_version', { flow_id });
    expect(await tool('run_all_tests', { flow_id, version: v1.number })).toMatchObject({ complete: true, totals: { total: 2, passed: 2, failed: 0 } });
    await tool('set_production_version', { flow_id, version_id: v1.version_id });

    // Production traffic for the backtest to replay, made here since the flow has none yet.
    for (const message of ['Our dashboard is down for everyone', 'Refund the duplicate invoice, please']) {
      expect(await tool('run_flow', { flow_id, input: { message }, production: true })).toMatchObject({ status: 'completed' });
    }

    // The change: billing tickets go to the finance queue. Tested, backtested, read, promoted.
    await tool('update_block_draft', { flow_id, step_id: route.step_id, content: 'const t = input.previous_output;\nconst queue = t.urgency === "high" ? "oncall" : t.category === "billing" ? "finance" : t.category;\nreturn { category: t.category, queue };' });
    const v2 = await tool('publish_version', { flow_id });
    expect(await tool('run_all_tests', { flow_id, version: v2.number })).toMatchObject({ totals: { total: 2, passed: 2 } });
    const backtest = await tool('backtest_version', { flow_id, target: v2.number });
    expect(backtest).toMatchObject({ complete: true, summary: { total: 2, same: 1, different: 1 } });
    const changed = await tool('get_backtest', { backtest_id: backtest.backtest_id, only_changed: true });
    // The pair says what the run was given and what changed: enough to judge the change without another call.
    expect(changed.pairs).toEqual([expect.objectContaining({ input: expect.objectContaining({ message: 'Refund the duplicate invoice, please' }), changes: [{ path: 'queue', kind: 'changed', before: '"billing"', after: '"finance"' }] })]);
    const promoted = await tool('set_production_version', { flow_id, version_id: v2.version_id });
    expect(promoted).toMatchObject({ version_id: v2.version_id });

    expect(calls.filter((c) => c.isError)).toEqual([]);
    expect(calls.length).toBeLessThanOrEqual(CALL_BUDGET);
    // What the session left: the flow's production is the second version.
    await t.runtime.projections.catchUp();
    const flow = await t.runtime.db.selectFrom('flows').select(['production_version_id']).where('id', '=', flow_id).executeTakeFirstOrThrow();
    expect(flow.production_version_id).toBe(v2.version_id);
  });
});
