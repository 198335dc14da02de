import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addSchedule } from '../../src/schedules/scheduleCommands.ts';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { setPromotionGate } from '../../src/authoring/flowAuthoring.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, freePort, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const REST_AUDIENCE = 'seqflow';
/** A tool's structured result, read as the JSON it is (its shape is checked by the output schema and the assertions). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests walk results of many shapes
type Structured = Record<string, any>;
const codeOf = async (response: Response) => ((await response.json()) as { detail: { code: string } }).detail.code;
const languageSchema = { type: 'object', properties: { language_code: { type: 'string' } }, required: ['language_code'] };
const gradeSchema = { type: 'object', properties: { overall_score: { type: 'integer' }, summary: { type: 'string' } }, required: ['overall_score', 'summary'] };

describe('the assistant endpoint (MCP at /api/v1/mcp/, SDK client, OAuth JWTs)', () => {
  let model: ScriptedModelServer;
  let issuer: JwksIssuer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let origin: string;
  let mcpUrl: string;
  let projectId: string;
  let otherProjectId: string;
  let apiKey: string;
  const clients: Client[] = [];

  /** An assistant signed in as `sub`: the SDK's own client over Streamable HTTP. */
  const connect = async (sub: string, clientId = 'claude-desktop') => {
    const token = await issuer.sign({ sub, aud: mcpUrl, clientId });
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** A tool's structured result; a tool error fails the test with its text. */
  const ok = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    return result.structuredContent as Structured;
  };
  const errorText = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await call(client, name, args);
    expect(result.isError).toBe(true);
    return (result.content[0] as { text: string }).text;
  };
  const post = (token: string | undefined, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    model = await startScriptedModelServer();
    issuer = await startJwksIssuer();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    mcpUrl = `${origin}/api/v1/mcp/`;
    t = await createTestRuntime('mcp', {
      OAUTH_ISSUER: issuer.issuer,
      OAUTH_AUDIENCE: REST_AUDIENCE,
      OAUTH_JWKS_URL: issuer.jwksUrl,
      SEQFLOW_PUBLIC_URL: origin,
      SEQFLOW_MCP_ALLOWED_ORIGINS: 'https://claude.ai',
      SEQFLOW_MCP_RUNS_PER_MINUTE: '8',
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
    });
    const deps = t.runtime.commands;
    await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createOrganization(deps, { slug: 'other', name: 'Other' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'alice', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'rita', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'tess', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'uma', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'pia', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'sam', role: 'member' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'other', userSubject: 'eve', role: 'owner' }, testPrincipal);
    projectId = (await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal)).id;
    otherProjectId = (await createProject(deps, { organizationSlug: 'other', slug: 'secret', name: 'Secret' }, testPrincipal)).id;
    apiKey = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    // As `npm start` runs them: the tools answer once the read models show their writes.
    await t.runtime.projections.start();
    ({ app } = await serveApi(t.runtime, port));
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
    await t?.close();
    await issuer?.close();
    await model?.close();
  });
  beforeEach(() => model.reset());

  it('offers the spec\'s twelve tools and seventeen more, each with schemas and annotations, and states the conventions', async () => {
    const client = await connect('alice');
    expect(client.getInstructions()).toMatch(/begin with list_projects\(\) to find your project_id, then hydrate_project/i);
    expect(client.getInstructions()).toMatch(/publish_version, then set_production_version/);
    expect(client.getInstructions()).toMatch(/vision-capable model/);
    expect(client.getInstructions()).toMatch(/backtest_version replays recorded production runs/);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'hydrate_project', 'create_flow', 'add_block', 'update_block', 'update_block_draft', 'update_block_output_schema', 'publish_version', 'set_production_version',
        'run_test_case', 'run_all_tests', 'get_test_run_trace', 'get_step_trace', 'create_test_case', 'remove_block', 'diff_versions', 'list_projects', 'get_block', 'update_test_case', 'delete_test_case', 'list_runs', 'list_schedules', 'run_flow',
        'list_approvals', 'decide_approval',
        'backtest_version', 'get_backtest', 'create_test_case_from_run', 'list_models', 'get_gate', 'set_gate', 'validate_draft',
      ].sort(),
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.annotations, tool.name).toBeDefined();
    }
    expect(Object.keys(byName.get('add_block')!.inputSchema.properties!)).toEqual(expect.arrayContaining(['flow_id', 'name', 'processor_type', 'prompt', 'target_id', 'direction']));
    expect(byName.get('update_block_draft')!.inputSchema.required).toEqual(['flow_id', 'step_id', 'content']);
    // The assertion union is the real input schema: each type with its fields, every field described.
    const assertionItems = (byName.get('create_test_case')!.inputSchema.properties!.assertions as { items: { anyOf?: unknown[]; oneOf?: unknown[] } }).items;
    const variants = (assertionItems.anyOf ?? assertionItems.oneOf) as { properties: Record<string, { description?: string; const?: string }> }[];
    expect(variants.map((v) => v.properties.type!.const)).toEqual(['equals', 'contains', 'not_contains', 'regex', 'json_schema', 'path_equals', 'number_range', 'max_latency_ms', 'max_tokens', 'tool_called', 'llm_judge', 'step_skipped', 'step_ran']);
    for (const variant of variants) for (const [field, schema] of Object.entries(variant.properties)) expect(schema.description, `${variant.properties.type!.const}.${field}`).toEqual(expect.any(String));
    expect(byName.get('set_production_version')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('hydrate_project')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('run_test_case')!.annotations).toMatchObject({ openWorldHint: true });
    expect(byName.get('run_all_tests')!.annotations).toMatchObject({ openWorldHint: true });
  });

  it('lets an assistant build the essay flow from nothing, publish and promote it; the flow then answers /execute with an API key', async () => {
    const client = await connect('alice');
    expect((await ok(client, 'hydrate_project', { project_id: projectId })).flows).toEqual([]);

    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Essay feedback', slug: 'essay-feedback' });
    const detect = await ok(client, 'add_block', { flow_id, name: 'detect', processor_type: 'llm', prompt: 'Detect the language of: {{message}}' });
    const grade = await ok(client, 'add_block', { flow_id, name: 'grade', processor_type: 'llm', prompt: 'Grade this {{previous_output.language_code}} essay: {{message}}', target_id: detect.step_id, direction: 'right' });
    const stats = await ok(client, 'add_block', { flow_id, name: 'stats', processor_type: 'code', code: 'return { words: 0 };', target_id: grade.step_id, direction: 'bottom' });
    const report = await ok(client, 'add_block', { flow_id, name: 'report', processor_type: 'passthrough', target_id: grade.step_id, direction: 'right' });
    expect(detect.warnings).toEqual([]);
    await ok(client, 'update_block_output_schema', { flow_id, step_id: detect.step_id, content: languageSchema });
    await ok(client, 'update_block_output_schema', { flow_id, step_id: grade.step_id, content: gradeSchema });
    await ok(client, 'update_block', { flow_id, step_id: grade.step_id, model: 'gpt-4o' });
    expect(await ok(client, 'update_block_draft', { flow_id, step_id: stats.step_id, content: 'return { words: input.message.split(/\\s+/).length };' })).toEqual({ flow_id, step_id: stats.step_id, field: 'code' });

    const mapped = (await ok(client, 'hydrate_project', { project_id: projectId })).flows[0];
    expect(mapped).toMatchObject({ flow_id, slug: 'essay-feedback', draft_status: 'unpublished', production_version_id: null, versions: [], test_cases: [] });
    expect(mapped.blocks).toEqual([
      { step_id: detect.step_id, name: 'detect', processor_type: 'llm', model: null, position: { step_index: 0, index_in_step: 0, step_kind: 'block' }, prompt_excerpt: 'Detect the language of: {{message}}' },
      expect.objectContaining({ step_id: grade.step_id, name: 'grade', model: 'gpt-4o', position: { step_index: 1, index_in_step: 0, step_kind: 'parallel' } }),
      expect.objectContaining({ step_id: stats.step_id, name: 'stats', processor_type: 'code', position: { step_index: 1, index_in_step: 1, step_kind: 'parallel' } }),
      expect.objectContaining({ step_id: report.step_id, name: 'report', processor_type: 'passthrough', position: { step_index: 2, index_in_step: 0, step_kind: 'block' } }),
    ]);

    const version = await ok(client, 'publish_version', { flow_id, note: 'first cut' });
    expect(version).toEqual({ flow_id, version_id: expect.any(String), number: 1, warnings: [] });
    expect((await ok(client, 'hydrate_project', { project_id: projectId })).flows[0].draft_status).toBe('published');
    expect(await ok(client, 'set_production_version', { flow_id, version_id: version.version_id })).toEqual({ flow_id, version_id: version.version_id, number: 1 });

    model.script({ content: { language_code: 'en' } }, { content: { overall_score: 81, summary: 'Clear.' } });
    const executed = await fetch(`${origin}/api/v1/seq/acme/web/essay-feedback/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'The essay has five words' }),
    });
    expect(executed.status).toBe(200);
    expect(((await executed.json()) as { result: unknown }).result).toEqual({ grade: { overall_score: 81, summary: 'Clear.' }, stats: { words: 5 } });
    expect(model.requests[1]!.body).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Grade this en essay: The essay has five words' }] });

    // Every change is an event whose principal is the subject, its OAuth client, over MCP.
    const events = await t.runtime.eventStore.readStream(`flow-${flow_id}`);
    expect(events.length).toBeGreaterThanOrEqual(10);
    for (const event of events) expect(event.metadata.principal).toEqual({ kind: 'user', id: 'alice', via: 'mcp', clientId: 'claude-desktop' });

    // A new draft is compared with the version it came from.
    await ok(client, 'remove_block', { flow_id, step_id: stats.step_id });
    expect((await ok(client, 'hydrate_project', { project_id: projectId })).flows[0].draft_status).toBe('changed');
    const diff = await ok(client, 'diff_versions', { flow_id, from: 1, to: 'draft' });
    expect(diff).toMatchObject({ flow_id, from: 1, to: 'draft', added: [], removed: [{ step_id: stats.step_id, name: 'stats' }] });
  });

  it('closes the gaps an assistant met: the code contract in the tools, a block whole in one add, org/project slugs, version numbers as strings', async () => {
    const client = await connect('alice');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // What input holds and what to return, written where the code is written.
    for (const name of ['add_block', 'update_block', 'update_block_draft']) expect(byName.get(name)!.description, name).toContain('input.previous_output');
    // The project by its slugs, as list_projects shows them.
    const { flow_id, project_id } = await ok(client, 'create_flow', { project_id: 'acme/web', name: 'Triage', slug: 'triage-gaps' });
    expect(project_id).toBe(projectId);
    // An llm block with its output schema and settings, in one edit.
    const route = await ok(client, 'add_block', { flow_id, name: 'route', processor_type: 'llm', prompt: 'Route: {{message}}', output_schema: languageSchema, processor_config: { temperature: 0 } });
    const events = (await t.runtime.eventStore.readStream(`flow-${flow_id}`)).map((e) => e.type);
    expect(events.filter((type) => type.startsWith('FlowBlock'))).toEqual(['FlowBlockAdded']);
    const block = await ok(client, 'get_block', { flow_id, step_id: route.step_id });
    expect(block).toMatchObject({ output_schema: languageSchema, processor_config: { temperature: 0 } });
    // A dry run of publish: nothing published, every problem named by its block.
    const broken = await ok(client, 'add_block', { flow_id, name: 'shape', processor_type: 'code', code: 'return {', target_id: route.step_id, direction: 'right' });
    const checked = await ok(client, 'validate_draft', { flow_id });
    expect(checked).toMatchObject({ flow_id, publishable: false, problems: [expect.stringMatching(/^steps\[1\]\.block \(block 'shape'\)\.code: does not parse/)] });
    expect((await ok(client, 'hydrate_project', { project_id: 'acme/web' })).flows.find((f: { flow_id: string }) => f.flow_id === flow_id).versions).toEqual([]);
    await ok(client, 'remove_block', { flow_id, step_id: broken.step_id });
    expect(await ok(client, 'validate_draft', { flow_id })).toMatchObject({ publishable: true, problems: [] });
    await ok(client, 'publish_version', { flow_id });
    // The promotion gate, read and set: what set_production_version will require.
    expect(await ok(client, 'get_gate', { flow_id })).toEqual({ flow_id, tests_required: false, backtest_max_changed_percent: null });
    expect(await ok(client, 'set_gate', { flow_id, tests_required: true, backtest_max_changed_percent: 10 })).toEqual({ flow_id, tests_required: true, backtest_max_changed_percent: 10 });
    // A test case not run on the version holds it back (a first version has no production runs to backtest: that rule starts with the second).
    await ok(client, 'create_test_case', { flow_id, name: 'routes', input: { message: 'hi' }, assertions: [{ type: 'path_equals', path: 'language_code', value: 'en' }] });
    expect(await errorText(client, 'set_production_version', { flow_id, version_id: 1 })).toMatch(/^TESTS_NOT_RUN: /);
    expect(await ok(client, 'set_gate', { flow_id, tests_required: false, backtest_max_changed_percent: null })).toEqual({ flow_id, tests_required: false, backtest_max_changed_percent: null });
    // "1" is version 1; an unknown version names the flow's versions.
    expect(await ok(client, 'set_production_version', { flow_id, version_id: '1' })).toMatchObject({ flow_id, number: 1 });
    expect(await errorText(client, 'set_production_version', { flow_id, version_id: '7' })).toContain('its versions: 1');
  });

  it('runs a tools flow on trial with tool_results answering its calls, and warns instead of silently offering no tools', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: 'acme/web', name: 'Agent', slug: 'agent-trial' });
    await ok(client, 'add_block', { flow_id, name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } });
    model.script({ toolCalls: [{ id: 'call_t', name: 'lookup', arguments: '{"q":"tides"}' }] }, { content: 'High tide at noon.' });
    const answered = await ok(client, 'run_flow', { flow_id, target: 'draft', input: { message: 'When is high tide?' }, tool_results: { lookup: '{"high":"12:00"}' } });
    expect(answered).toMatchObject({ status: 'completed', result: { text: 'High tide at noon.' } });
    expect(answered).not.toHaveProperty('warnings');
    // The model was offered the tool, and got its scripted result back.
    expect(model.requests.at(-2)!.body.tools).toEqual([expect.objectContaining({ function: expect.objectContaining({ name: 'lookup' }) })]);
    expect(model.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_t', content: '{"high":"12:00"}' });

    model.script({ content: 'No tools, a guess.' });
    const unanswered = await ok(client, 'run_flow', { flow_id, target: 'draft', input: { message: 'When is high tide?' } });
    expect(unanswered).toMatchObject({ status: 'completed', warnings: [expect.stringContaining("'agent' call tools, but no tool_results were given")] });
    expect(model.requests.at(-1)!.body).not.toHaveProperty('tools');
  });

  it('backtests a version on the flow\'s recorded production runs, reads every pair, and keeps a run as a test case', async () => {
    const client = await connect('uma');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Backtested', slug: 'backtested' });
    const grade = await ok(client, 'add_block', { flow_id, name: 'grade', processor_type: 'llm', prompt: 'Grade: {{message}}' });
    await ok(client, 'update_block_output_schema', { flow_id, step_id: grade.step_id, content: gradeSchema });
    const v1 = await ok(client, 'publish_version', { flow_id });
    await ok(client, 'set_production_version', { flow_id, version_id: v1.version_id });
    const recorded: string[] = [];
    for (const [message, overall_score] of [['first', 80], ['second', 60]] as const) {
      model.script({ content: { overall_score, summary: message } });
      const response = await fetch(`${origin}/api/v1/seq/acme/web/backtested/execute`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      recorded.push(((await response.json()) as { executionId: string }).executionId);
    }
    await t.runtime.projections.catchUp();

    // The draft grades the second essay differently: one pair the same, one different, the path named.
    model.respond = (request) => {
      const second = JSON.stringify(request.body.messages).includes('second');
      return { content: { overall_score: second ? 65 : 80, summary: second ? 'second' : 'first' } };
    };
    const backtest = await ok(client, 'backtest_version', { flow_id, target: 'draft', last: 10 });
    expect(backtest).toEqual({
      backtest_id: expect.any(String),
      complete: true,
      summary: { total: 2, compared: 2, same: 1, different: 1, failed: 0 },
      first_differences: [{ flow_run_id: recorded[1], input: { message: 'second', parameters: {}, attachments: [] }, backtest_run_id: expect.any(String), outcome: 'different', changes: [{ path: 'overall_score', kind: 'changed', before: '60', after: '65' }], more_changes: 0, candidate_error: null }],
    });
    const read = await ok(client, 'get_backtest', { backtest_id: backtest.backtest_id });
    expect(read).toMatchObject({ status: 'finished', target: 'draft', summary: { total: 2, same: 1, different: 1 }, next_cursor: null });
    // Each pair says what its recorded run was given, as create_test_case takes it.
    expect(read.pairs.map((p: { flow_run_id: string; outcome: string; input: { message: string } }) => [p.flow_run_id, p.outcome, p.input.message])).toEqual([[recorded[0], 'same', 'first'], [recorded[1], 'different', 'second']]);
    // The replay is a run the assistant reads like any other.
    expect(await ok(client, 'get_test_run_trace', { flow_run_id: backtest.first_differences[0].backtest_run_id })).toMatchObject({ status: 'completed' });
    // A version the flow does not have, and another organization's backtest, are refused as not found.
    expect(await errorText(client, 'backtest_version', { flow_id, target: 7 })).toMatch(/^VERSION_NOT_FOUND/);
    expect(await errorText(await connect('eve'), 'get_backtest', { backtest_id: backtest.backtest_id })).toMatch(/^BACKTEST_NOT_FOUND/);

    const made = await ok(client, 'create_test_case_from_run', { flow_run_id: recorded[1], name: 'the second essay' });
    expect(made).toEqual({ test_case_id: expect.any(String), flow_id, name: 'the second essay', from_flow_run_id: recorded[1], warnings: [] });
    model.script({ content: { overall_score: 60, summary: 'second' } });
    expect(await ok(client, 'run_test_case', { test_case_id: made.test_case_id, version: 1 })).toMatchObject({ passed: true });
  });

  it('adds several test cases in one create_test_case, or none when one of them is wrong', async () => {
    // A subject of its own: its test runs count against a per-subject limit.
    const client = await connect('sam');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Suite at once', slug: 'suite-at-once' });
    await ok(client, 'add_block', { flow_id, name: 'echo', processor_type: 'code', code: 'return { said: input.message };' });
    const testCasesOf = async () => (await ok(client, 'hydrate_project', { project_id: projectId })).flows.find((f: { flow_id: string }) => f.flow_id === flow_id).test_cases;
    const echoes = (message: string) => ({ name: `echoes ${message}`, input: { message }, assertions: [{ type: 'path_equals', path: 'said', value: message }] });

    // The third case's assertion has no path: it is named, and neither of the good two is added.
    const refused = await errorText(client, 'create_test_case', { flow_id, cases: [echoes('a'), echoes('b'), { ...echoes('c'), assertions: [{ type: 'path_equals', value: 'c' }] }] });
    expect(refused).toMatch(/cases\[2\]\.assertions\[0\]\.path/);
    // So is one the schema lets through but the test-case rules refuse (an image of a type no model reads).
    const bmp = { ...echoes('d'), input: { message: 'd', attachments: [{ kind: 'url', url: 'https://images.example.com/a.bmp', mime_type: 'image/bmp' }] } };
    expect(await errorText(client, 'create_test_case', { flow_id, cases: [echoes('a'), bmp] })).toMatch(/^[A-Z_]+: cases\[1\]: /);
    expect(await testCasesOf()).toEqual([]);
    // One call, three cases, each with its id, in order.
    const added = await ok(client, 'create_test_case', { flow_id, cases: [echoes('a'), echoes('b'), echoes('c')] });
    expect(added).toEqual({ flow_id, test_cases: ['a', 'b', 'c'].map((m) => ({ test_case_id: expect.any(String), name: `echoes ${m}` })) });
    expect((await testCasesOf()).map((c: { test_case_id: string }) => c.test_case_id).sort()).toEqual(added.test_cases.map((c: { test_case_id: string }) => c.test_case_id).sort());
    // One case and a list at once is ambiguous, and refused.
    expect(await errorText(client, 'create_test_case', { flow_id, ...echoes('d'), cases: [echoes('e')] })).toMatch(/^VALIDATION_FAILED: Give cases, or one case/);
    expect(await ok(client, 'run_all_tests', { flow_id, draft: true })).toMatchObject({ totals: { total: 3, passed: 3, failed: 0 } });
  });

  it('creates test cases, runs one and all, and reads both traces with ids passed on unchanged', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Grader', slug: 'grader' });
    const grade = await ok(client, 'add_block', { flow_id, name: 'grade', processor_type: 'llm', prompt: 'Grade: {{message}}' });
    await ok(client, 'update_block_output_schema', { flow_id, step_id: grade.step_id, content: gradeSchema });
    const version = await ok(client, 'publish_version', { flow_id });
    await ok(client, 'set_production_version', { flow_id, version_id: version.version_id });

    const good = await ok(client, 'create_test_case', { flow_id, name: 'good essay', input: { message: 'fine' }, assertions: [{ type: 'number_range', path: 'overall_score', min: 70 }] });
    await ok(client, 'create_test_case', { flow_id, name: 'bad essay', input: { message: 'meh' }, assertions: [{ type: 'number_range', path: 'overall_score', max: 30 }] });
    expect((await ok(client, 'hydrate_project', { project_id: projectId })).flows.find((f: { flow_id: string }) => f.flow_id === flow_id).test_cases).toEqual([
      { test_case_id: expect.any(String), name: 'bad essay' },
      { test_case_id: good.test_case_id, name: 'good essay' },
    ]);

    model.script({ content: { overall_score: 90, summary: 'x'.repeat(2000) } });
    const one = await ok(client, 'run_test_case', { test_case_id: good.test_case_id });
    expect(one).toMatchObject({ flow_run_id: expect.any(String), test_case_id: good.test_case_id, name: 'good essay', status: 'completed', passed: true });
    expect(one.assertions).toEqual([{ type: 'number_range', passed: true, score: 1, reason: expect.any(String) }]);
    // Every field shows, long strings cut.
    expect(JSON.parse(one.output_excerpt)).toEqual({ overall_score: 90, summary: `${'x'.repeat(125)}… [truncated: 2000 characters]` });

    model.respond = (request) => ({ content: { overall_score: String(request.body.messages[0]!.content).includes('fine') ? 88 : 55, summary: 'ok' } });
    const all = await ok(client, 'run_all_tests', { flow_id, version: 1 });
    expect(all).toMatchObject({ flow_id, complete: true, totals: { total: 2, passed: 1, failed: 1, running: 0 } });
    const failing = all.runs.find((r: { name: string }) => r.name === 'bad essay');
    expect(failing).toMatchObject({ status: 'completed', passed: false, assertions: [{ type: 'number_range', passed: false }] });

    const trace = await ok(client, 'get_test_run_trace', { flow_run_id: one.flow_run_id });
    expect(trace).toMatchObject({ flow_run_id: one.flow_run_id, flow_id, mode: 'test', version: { version_id: version.version_id, number: 1 }, status: 'completed', total_steps: 1, next_cursor: null });
    // What the run was given, in the form create_test_case takes it.
    expect(trace.input).toEqual({ message: 'fine', parameters: {}, attachments: [] });
    expect(trace.steps[0]).toMatchObject({ step_id: grade.step_id, name: 'grade', status: 'completed', usage: expect.objectContaining({ total_tokens: expect.any(Number) }) });
    // Long strings are cut for the assistant's small context, with a marker.
    expect(trace.result.summary).toMatch(/^x{500}… \[truncated: 2000 characters\]$/);
    const step = await ok(client, 'get_step_trace', { flow_run_id: failing.flow_run_id, step_id: grade.step_id });
    expect(step).toMatchObject({ flow_run_id: failing.flow_run_id, step_id: grade.step_id, name: 'grade', processor_type: 'llm', total_executions: 1, next_cursor: null });
    expect(step.executions[0]).toMatchObject({ prompt: 'Grade: meh', model: 'gpt-4o-mini', attempts: 1 });
    const wrongStep = await errorText(client, 'get_step_trace', { flow_run_id: failing.flow_run_id, step_id: 'nope' });
    expect(wrongStep).toContain(`BLOCK_NOT_FOUND: Block nope did not run in ${failing.flow_run_id}\nHint: Blocks that ran in this run: ${grade.step_id} (grade).`);

    // The failing case was wrong, not the flow: fix its assertion (the rest of it stays), then drop the other one.
    const badId = all.runs.find((r: { name: string }) => r.name === 'bad essay').test_case_id as string;
    expect(await ok(client, 'update_test_case', { test_case_id: badId, assertions: [{ type: 'number_range', path: 'overall_score', max: 60 }] })).toEqual({ test_case_id: badId, name: 'bad essay' });
    expect((await ok(client, 'run_test_case', { test_case_id: badId })).passed).toBe(true);
    expect(await errorText(client, 'update_test_case', { test_case_id: badId, assertions: [{ type: 'no_such_assertion' }] })).toMatch(/Input validation error: .* at assertions\[0\]\.type/);
    expect(await ok(client, 'delete_test_case', { test_case_id: good.test_case_id })).toEqual({ test_case_id: good.test_case_id, deleted: true });
    expect((await ok(client, 'hydrate_project', { project_id: projectId })).flows.find((f: { flow_id: string }) => f.flow_id === flow_id).test_cases).toEqual([{ test_case_id: badId, name: 'bad essay' }]);
    expect(await errorText(client, 'delete_test_case', { test_case_id: good.test_case_id })).toMatch(/^TEST_CASE_NOT_FOUND: /);

    // The flow's runs, newest first, a page at a time: the four test runs above (the runs listing may trail the log by a moment).
    let listed = await ok(client, 'list_runs', { flow_id });
    for (let i = 0; i < 100 && listed.runs.length < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      listed = await ok(client, 'list_runs', { flow_id });
    }
    expect(listed.runs.map((r: { mode: string }) => r.mode)).toEqual(['test', 'test', 'test', 'test']);
    expect(listed.runs.map((r: { flow_run_id: string }) => r.flow_run_id)).toContain(one.flow_run_id);
    const first = await ok(client, 'list_runs', { flow_id, limit: 3 });
    const rest = await ok(client, 'list_runs', { flow_id, limit: 3, cursor: first.next_cursor });
    expect([...first.runs, ...rest.runs]).toEqual(listed.runs);
    expect(rest.next_cursor).toBeNull();
    expect((await ok(client, 'list_runs', { flow_id, mode: ['sync', 'async'] })).runs).toEqual([]);
    // Every id list_runs gives is read by the trace tools: a test run's id reads as the run it made.
    const listedRun = listed.runs.find((r: { flow_run_id: string }) => r.flow_run_id === one.flow_run_id);
    expect(listedRun.test_run_id).toEqual(expect.any(String));
    expect(await ok(client, 'get_test_run_trace', { flow_run_id: listedRun.test_run_id })).toMatchObject({ flow_run_id: one.flow_run_id, status: 'completed' });
    expect(await ok(client, 'get_step_trace', { flow_run_id: listedRun.test_run_id, step_id: grade.step_id })).toMatchObject({ flow_run_id: one.flow_run_id });
    expect(await errorText(client, 'list_runs', { flow_id: 'f-missing' })).toMatch(/^FLOW_NOT_FOUND: /);
  });

  it('stops waiting after wait_seconds and returns the run so far; the run goes on and its trace shows the end', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Slow', slug: 'slow' });
    await ok(client, 'add_block', { flow_id, name: 'think', processor_type: 'llm', prompt: '{{message}}' });
    await ok(client, 'publish_version', { flow_id });
    const { test_case_id } = await ok(client, 'create_test_case', { flow_id, name: 'slow', input: { message: 'hm' }, assertions: [{ type: 'contains', value: 'done' }] });
    let release: () => void = () => undefined;
    model.script({ content: 'done thinking', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    // wait_seconds 0 still names the run (it answered flow_run_id: null before).
    const soFar = await ok(client, 'run_test_case', { test_case_id, wait_seconds: 0 });
    expect(soFar).toMatchObject({ test_case_id, status: 'running', passed: null, assertions: [], output_excerpt: null, flow_run_id: expect.any(String) });
    expect((await ok(client, 'get_test_run_trace', { flow_run_id: soFar.flow_run_id })).status).toBe('running');
    release();
    let trace = await ok(client, 'get_test_run_trace', { flow_run_id: soFar.flow_run_id });
    for (let i = 0; i < 100 && trace.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      trace = await ok(client, 'get_test_run_trace', { flow_run_id: soFar.flow_run_id });
    }
    expect(trace.status).toBe('completed');
    expect(trace.result).toEqual({ text: 'done thinking' });
  });

  it('answers business failures as tool errors with a code and a hint the model can act on', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Hints', slug: 'hints' });
    const first = await ok(client, 'add_block', { flow_id, name: 'first', processor_type: 'passthrough' });
    const unknownTarget = await errorText(client, 'add_block', { flow_id, name: 'second', processor_type: 'passthrough', target_id: 'no-such-step', direction: 'right' });
    expect(unknownTarget).toBe(`BLOCK_NOT_FOUND: No block no-such-step in this flow's draft\nHint: Valid step_ids of this flow: ${first.step_id} (first).`);
    expect(await errorText(client, 'update_block_draft', { flow_id, step_id: first.step_id, content: 'x' })).toMatch(/^BLOCK_INVALID: Block 'first' is a passthrough block/);
    expect(await errorText(client, 'publish_version', { flow_id: 'no-such-flow' })).toBe('FLOW_NOT_FOUND: No flow no-such-flow\nHint: Call hydrate_project to see the flow_ids of the project.');
    expect(await errorText(client, 'create_flow', { project_id: projectId, name: 'Again', slug: 'hints' })).toMatch(/^SLUG_TAKEN: .*\nHint: Choose another slug/);
    expect(await errorText(client, 'set_production_version', { flow_id, version_id: 'v-none' })).toMatch(/^VERSION_NOT_FOUND: /);
    // Arguments the schema refuses are a tool error too, never a protocol error.
    expect(await errorText(client, 'add_block', { flow_id, name: 'x', processor_type: 'shell' })).toMatch(/processor_type/);
    expect(await errorText(client, 'create_test_case', { flow_id, name: 'bad', input: { message: 'm' }, assertions: [{ type: 'sounds_good' }] })).toMatch(/Input validation error: .*Expected 'equals' \| 'contains' .* 'llm_judge' \| 'step_skipped' \| 'step_ran' at assertions\[0\]\.type/);
  });

  it('lists the model catalog for choosing a block\'s model: provider, whether it is configured, capabilities and prices', async () => {
    const client = await connect('alice');
    const listed = await ok(client, 'list_models', {});
    const byName = new Map((listed.models as { model: string }[]).map((m) => [m.model, m]));
    expect(byName.get('gpt-4.1-mini')).toEqual({ model: 'gpt-4.1-mini', provider: 'openai', configured: true, image_mime_types: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'], tools: true, structured_output: true, context_window: 1_047_576, input_usd_per_mtok: 0.4, output_usd_per_mtok: 1.6 });
    // This service has no Anthropic account: an assistant sees it before it builds a flow that would fail.
    expect(byName.get('claude-haiku-4-5')).toMatchObject({ provider: 'anthropic', configured: false, input_usd_per_mtok: 1, output_usd_per_mtok: 5 });
    expect(listed.default_model).toEqual(expect.any(String));
  });

  it('refuses text the log cannot store as a tool error naming the argument, and records nothing of it', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Storable', slug: 'storable' });
    const block = await ok(client, 'add_block', { flow_id, name: 'echo', processor_type: 'passthrough' });
    const before = await t.runtime.eventStore.headPosition();
    expect(await errorText(client, 'create_flow', { project_id: projectId, name: 'Nul\u0000name', slug: 'nul-name' })).toMatch(/^INVALID_TEXT: arguments\.name contains a NUL character/);
    expect(await errorText(client, 'update_block', { flow_id, step_id: block.step_id, name: 'half \ud83d' })).toMatch(/^INVALID_TEXT: arguments\.name contains an unpaired UTF-16 surrogate/);
    expect(await errorText(client, 'run_flow', { flow_id, target: 'draft', input: { message: 'a\u0000b' } })).toMatch(/^INVALID_TEXT: arguments\.input\.message contains a NUL character/);
    expect(await t.runtime.eventStore.headPosition()).toBe(before);
    // The same text, escaped as JSON allows, is stored and run faithfully.
    const run = await ok(client, 'run_flow', { flow_id, target: 'draft', input: { message: 'a\\u0000b 😀' } });
    expect(run).toMatchObject({ status: 'completed', result: { text: 'a\\u0000b 😀' } });
  });

  it('answers a write that is in the log as done, even while the read models lag behind it', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Lagging', slug: 'lagging' });
    await t.runtime.projections.stop();
    try {
      const added = await ok(client, 'create_test_case', { flow_id, name: 'once', input: { message: 'm' }, assertions: [{ type: 'contains', value: 'm' }] });
      expect((await t.runtime.eventStore.readStream(`testcase-${added.test_case_id}`)).map((e) => e.type)).toEqual(['TestCaseCreated']);
    } finally {
      await t.runtime.projections.start();
    }
  });

  it('warns when a flow that receives images gets a model without vision', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Photos', slug: 'photos' });
    const look = await ok(client, 'add_block', { flow_id, name: 'look', processor_type: 'llm', prompt: 'Describe the image', model: 'gpt-4o' });
    expect(look.warnings).toEqual([]);
    await ok(client, 'create_test_case', { flow_id, name: 'cat', input: { message: 'm', attachments: [{ kind: 'url', url: 'https://images.example.com/cat.png', mime_type: 'image/png' }] }, assertions: [{ type: 'contains', value: 'cat' }] });
    const textOnly = await ok(client, 'update_block', { flow_id, step_id: look.step_id, model: 'gpt-3.5-turbo' });
    expect(textOnly.warnings).toEqual([`This flow receives images, but block 'look' (${look.step_id}) uses gpt-3.5-turbo, which takes no images: set a vision-capable model with update_block.`]);
    expect((await ok(client, 'update_block', { flow_id, step_id: look.step_id, model: 'gpt-4o' })).warnings).toEqual([]);
    const hydrated = await ok(client, 'hydrate_project', { project_id: projectId });
    expect(hydrated.flows.find((f: { flow_id: string }) => f.flow_id === flow_id).receives_images).toBe(true);
    expect(hydrated.models).toEqual(expect.arrayContaining([{ id: 'gpt-4o', vision: true }, { id: 'gpt-3.5-turbo', vision: false }]));
  });

  it("lists a flow's schedules read-only (list_schedules), and another organization's subject sees none of them", async () => {
    const alice = await connect('alice');
    const { flow_id } = await ok(alice, 'create_flow', { project_id: projectId, name: 'Nightly', slug: 'nightly' });
    await t.runtime.projections.catchUp();
    expect(await ok(alice, 'list_schedules', { flow_id })).toEqual({ schedules: [] });
    const managing = { db: t.runtime.db, commands: t.runtime.commands, guard: t.runtime.execution.guard, callbacks: { plainHttpInAllowedRanges: false } };
    const { scheduleId } = await addSchedule(managing, { flowId: flow_id, cron: '0 7 * * *', timezone: 'Europe/Paris', input: { message: 'the night' }, missed: 'skip' }, { principal: { kind: 'cli', id: 'operator' } });
    await t.runtime.projections.catchUp();
    const listed = await ok(alice, 'list_schedules', { flow_id });
    expect(listed.schedules).toEqual([
      {
        schedule_id: scheduleId, cron: '0 7 * * *', timezone: 'Europe/Paris', missed: 'skip', status: 'active', callback_url: null,
        next_firing_at: expect.stringMatching(/T0[56]:00:00\.000Z$/), last_fired_for: null, last_flow_run_id: null, last_error_code: null, fired_count: 0, skipped_count: 0,
      },
    ]);
    expect((await errorText(await connect('eve'), 'list_schedules', { flow_id })).replaceAll(flow_id, 'ID')).toBe((await errorText(await connect('eve'), 'list_schedules', { flow_id: 'f-missing' })).replaceAll('f-missing', 'ID'));
  });

  it('shows a subject of another organization nothing: every id of acme is NOT_FOUND exactly as one that does not exist', async () => {
    const alice = await connect('alice');
    const { flow_id } = await ok(alice, 'create_flow', { project_id: projectId, name: 'Private', slug: 'private' });
    const block = await ok(alice, 'add_block', { flow_id, name: 'only', processor_type: 'passthrough' });
    const eve = await connect('eve');
    const same = async (name: string, real: Record<string, unknown>, missing: Record<string, unknown>, id: string, missingId: string) =>
      expect((await errorText(eve, name, real)).replaceAll(id, 'ID')).toBe((await errorText(eve, name, missing)).replaceAll(missingId, 'ID'));
    await same('hydrate_project', { project_id: projectId }, { project_id: 'p-missing' }, projectId, 'p-missing');
    await same('create_flow', { project_id: projectId, name: 'x', slug: 'x' }, { project_id: 'p-missing', name: 'x', slug: 'x' }, projectId, 'p-missing');
    await same('add_block', { flow_id, name: 'x', processor_type: 'passthrough', target_id: block.step_id }, { flow_id: 'f-missing', name: 'x', processor_type: 'passthrough', target_id: block.step_id }, flow_id, 'f-missing');
    await same('publish_version', { flow_id }, { flow_id: 'f-missing' }, flow_id, 'f-missing');
    await same('run_all_tests', { flow_id }, { flow_id: 'f-missing' }, flow_id, 'f-missing');
    expect(await errorText(eve, 'publish_version', { flow_id })).toMatch(/^FLOW_NOT_FOUND: /);
    // By slugs too, never revealing the project's id.
    expect(await errorText(eve, 'hydrate_project', { project_id: 'acme/web' })).toBe(await errorText(eve, 'hydrate_project', { project_id: 'acme/nothing' }).then((text) => text.replace('acme/nothing', 'acme/web')));
    // Her own project is hers, and the only one she is shown.
    expect(await ok(eve, 'hydrate_project', { project_id: otherProjectId })).toMatchObject({ project_id: otherProjectId, flows: [] });
    expect(await ok(eve, 'list_projects', {})).toEqual({ projects: [{ project_id: otherProjectId, slug: 'secret', name: 'Secret', organization_id: expect.any(String), organization_slug: 'other', organization_name: 'Other' }] });
    // And a subject who is no member anywhere sees nothing at all.
    expect(await errorText(await connect('nobody'), 'hydrate_project', { project_id: projectId })).toMatch(/^PROJECT_NOT_FOUND: /);
    expect(await ok(await connect('nobody'), 'list_projects', {})).toEqual({ projects: [] });
  });

  it('reads a block whole with get_block: its full prompt, code and schema, which hydrate_project only excerpts', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Long prompt', slug: 'long-prompt' });
    const prompt = `Summarise, in the reader's language, every point of this text: ${'{{message}} '.repeat(20)}`;
    const ask = await ok(client, 'add_block', { flow_id, name: 'ask', processor_type: 'llm', prompt });
    await ok(client, 'update_block_output_schema', { flow_id, step_id: ask.step_id, content: languageSchema });
    const shape = await ok(client, 'add_block', { flow_id, name: 'shape', processor_type: 'code', code: 'return { n: 1 };', target_id: ask.step_id, direction: 'right' });
    expect(await ok(client, 'get_block', { flow_id, step_id: ask.step_id })).toEqual({
      flow_id,
      step_id: ask.step_id,
      name: 'ask',
      processor_type: 'llm',
      position: { step_index: 0, index_in_step: 0, step_kind: 'block' },
      model: null,
      prompt,
      code: null,
      output_schema: languageSchema,
      processor_config: {},
    });
    expect(await ok(client, 'get_block', { flow_id, step_id: shape.step_id })).toMatchObject({ processor_type: 'code', code: 'return { n: 1 };', prompt: null });
    const missing = await errorText(client, 'get_block', { flow_id, step_id: 'no-such-step' });
    expect(missing).toMatch(/^BLOCK_NOT_FOUND: /);
    expect(missing).toContain(`${ask.step_id} (ask)`);
  });

  it('records a production run with run_flow production: true, marked as the assistant\'s, which a backtest then replays', async () => {
    const client = await connect('pia');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Recorded', slug: 'recorded-by-assistant' });
    const echo = await ok(client, 'add_block', { flow_id, name: 'echo', processor_type: 'code', code: 'return { said: input.message };' });
    // No production version: nothing to record.
    expect(await errorText(client, 'run_flow', { flow_id, input: { message: 'hi' }, production: true })).toMatch(/^NO_PRODUCTION_VERSION: /);
    const v1 = await ok(client, 'publish_version', { flow_id });
    await ok(client, 'set_production_version', { flow_id, version_id: v1.version_id });
    // A production run is of the production version: the draft is refused, not silently swapped.
    expect(await errorText(client, 'run_flow', { flow_id, input: { message: 'hi' }, production: true, target: 'draft' })).toMatch(/^VALIDATION_FAILED: A production run runs the production version/);

    const recorded = await ok(client, 'run_flow', { flow_id, input: { message: 'a ticket', parameters: { tier: 'gold' } }, production: true });
    expect(recorded).toEqual({ flow_run_id: expect.any(String), status: 'completed', result: { said: 'a ticket' } });
    expect(await ok(client, 'get_test_run_trace', { flow_run_id: recorded.flow_run_id })).toMatchObject({ mode: 'sync', input: { message: 'a ticket', parameters: { tier: 'gold' } } });
    await t.runtime.projections.catchUp();
    const listed = await ok(client, 'list_runs', { flow_id });
    expect(listed.runs).toEqual([expect.objectContaining({ flow_run_id: recorded.flow_run_id, mode: 'sync', started_via: 'mcp', test_run_id: null })]);

    // The backtest has the assistant's run to replay, input and all.
    await ok(client, 'update_block_draft', { flow_id, step_id: echo.step_id, content: 'return { said: input.message.toUpperCase() };' });
    const backtest = await ok(client, 'backtest_version', { flow_id, target: 'draft' });
    expect(backtest).toMatchObject({
      complete: true,
      summary: { total: 1, different: 1 },
      first_differences: [{ flow_run_id: recorded.flow_run_id, input: { message: 'a ticket', parameters: { tier: 'gold' }, attachments: [] }, changes: [{ path: 'said', kind: 'changed', before: '"a ticket"', after: '"A TICKET"' }] }],
    });
  });

  it('runs a flow with run_flow: production, the draft or a version, answering its flow_run_id even before the run ends', async () => {
    // A subject of its own: run_flow counts against the same per-subject limit as the test runs.
    const client = await connect('tess');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Echo', slug: 'echo-trial' });
    const echo = await ok(client, 'add_block', { flow_id, name: 'echo', processor_type: 'code', code: 'return { said: input.message, v: 1 };' });
    // No version yet: production cannot run, the draft can.
    expect(await errorText(client, 'run_flow', { flow_id, input: { message: 'hi' }, target: 'production' })).toMatch(/^NO_PRODUCTION_VERSION: /);
    expect(await ok(client, 'run_flow', { flow_id, input: { message: 'hi' }, target: 'draft' })).toEqual({ flow_run_id: expect.any(String), status: 'completed', result: { said: 'hi', v: 1 } });
    const v1 = await ok(client, 'publish_version', { flow_id });
    await ok(client, 'set_production_version', { flow_id, version_id: v1.version_id });
    await ok(client, 'update_block_draft', { flow_id, step_id: echo.step_id, content: 'return { said: input.message, v: 2 };' });
    expect((await ok(client, 'run_flow', { flow_id, input: { message: 'a' } })).result).toEqual({ said: 'a', v: 1 });
    expect((await ok(client, 'run_flow', { flow_id, input: { message: 'b' }, target: 'draft' })).result).toEqual({ said: 'b', v: 2 });
    expect((await ok(client, 'run_flow', { flow_id, input: { message: 'c' }, target: 1 })).result).toEqual({ said: 'c', v: 1 });
    expect(await errorText(client, 'run_flow', { flow_id, input: { message: 'd' }, target: 7 })).toMatch(/^VERSION_NOT_FOUND: /);

    // A run that outlasts wait_seconds is answered running, with its id; its trace shows the end.
    const ask = await ok(client, 'add_block', { flow_id, name: 'ask', processor_type: 'llm', prompt: '{{message}}', target_id: echo.step_id, direction: 'right' });
    expect(ask.step_id).toEqual(expect.any(String));
    let release: () => void = () => undefined;
    model.script({ content: 'late', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const early = await ok(client, 'run_flow', { flow_id, input: { message: 'slow' }, target: 'draft', wait_seconds: 0 });
    expect(early).toEqual({ flow_run_id: expect.any(String), status: 'running' });
    release();
    let trace = await ok(client, 'get_test_run_trace', { flow_run_id: early.flow_run_id });
    for (let i = 0; i < 100 && trace.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      trace = await ok(client, 'get_test_run_trace', { flow_run_id: early.flow_run_id });
    }
    expect(trace).toMatchObject({ flow_run_id: early.flow_run_id, mode: 'test', status: 'completed' });

    // A failing block is the run's answer, not a tool error.
    await ok(client, 'remove_block', { flow_id, step_id: ask.step_id });
    await ok(client, 'update_block_draft', { flow_id, step_id: echo.step_id, content: 'throw new Error("boom");' });
    expect(await ok(client, 'run_flow', { flow_id, input: { message: 'x' }, target: 'draft' })).toMatchObject({ status: 'failed', error: { code: expect.any(String), message: expect.stringContaining('boom'), block_name: 'echo' } });

    // Code that does not parse is never published (it was, with `return {`): the error names its line.
    await ok(client, 'update_block_draft', { flow_id, step_id: echo.step_id, content: 'const said = input.message;\nreturn {' });
    const refused = await errorText(client, 'publish_version', { flow_id });
    expect(refused).toMatch(/^FLOW_INVALID: /);
    expect(refused).toMatch(/code: does not parse: line 2, column \d+: Unexpected token/);
  });

  it('takes a version by its version_id or its number wherever a tool names one', async () => {
    const client = await connect('uma');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Versions', slug: 'versions' });
    const echo = await ok(client, 'add_block', { flow_id, name: 'echo', processor_type: 'code', code: 'return { v: 1 };' });
    const v1 = await ok(client, 'publish_version', { flow_id });
    await ok(client, 'update_block_draft', { flow_id, step_id: echo.step_id, content: 'return { v: 2 };' });
    const v2 = await ok(client, 'publish_version', { flow_id });
    expect(await ok(client, 'set_production_version', { flow_id, version_id: 1 })).toEqual({ flow_id, version_id: v1.version_id, number: 1 });
    expect(await ok(client, 'set_production_version', { flow_id, version_id: v2.version_id })).toEqual({ flow_id, version_id: v2.version_id, number: 2 });
    expect(await errorText(client, 'set_production_version', { flow_id, version_id: 9 })).toMatch(/^VERSION_NOT_FOUND: /);
    const { test_case_id } = await ok(client, 'create_test_case', { flow_id, name: 'one', input: { message: 'x' }, assertions: [{ type: 'path_equals', path: 'v', value: 1 }] });
    expect(await ok(client, 'run_test_case', { test_case_id, version: v1.version_id })).toMatchObject({ status: 'completed', passed: true });
    expect(await ok(client, 'run_all_tests', { flow_id, version: 2 })).toMatchObject({ totals: { total: 1, passed: 0, failed: 1 } });

    // With the promotion gate on, what a complete suite answered is what the gate sees, at once.
    await setPromotionGate(t.runtime.commands, {}, { flowId: flow_id, enabled: true }, testPrincipal);
    expect(await ok(client, 'run_all_tests', { flow_id, version: v1.version_id })).toMatchObject({ complete: true, totals: { total: 1, passed: 1 } });
    expect(await ok(client, 'set_production_version', { flow_id, version_id: 1 })).toMatchObject({ number: 1 });
    expect(await errorText(client, 'set_production_version', { flow_id, version_id: 2 })).toMatch(/^TESTS_FAILING: /);
  });

  it('warns of what will go wrong at run time: a placeholder that always renders empty, an unknown model, an llm block without a prompt', async () => {
    const client = await connect('alice');
    const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Warned', slug: 'warned' });
    const typo = await ok(client, 'add_block', { flow_id, name: 'typo', processor_type: 'llm', prompt: 'Hello {{parameterz.name}}, {{message}}' });
    expect(typo.warnings).toEqual([expect.stringContaining("the placeholder {{parameterz.name}} always renders empty")]);
    const model = await ok(client, 'update_block', { flow_id, step_id: typo.step_id, prompt: 'Hello {{parameters.name}}', model: 'gpt-9-imaginary' });
    expect(model.warnings).toEqual([expect.stringContaining("uses the model 'gpt-9-imaginary', which the service does not know")]);
    const empty = await ok(client, 'add_block', { flow_id, name: 'empty', processor_type: 'llm', target_id: typo.step_id, direction: 'right' });
    expect(empty.warnings).toContainEqual(expect.stringContaining("block 'empty'"));
    expect(empty.warnings).toContainEqual(expect.stringContaining('has no prompt'));
    await ok(client, 'remove_block', { flow_id, step_id: empty.step_id });
    const published = await ok(client, 'publish_version', { flow_id });
    expect(published.warnings).toEqual([expect.stringContaining('gpt-9-imaginary')]);
  });

  it('starts an assistant without ids: list_projects names the project, hydrate_project takes its id or its slugs', async () => {
    const alice = await connect('alice');
    const { projects } = (await ok(alice, 'list_projects', {})) as { projects: { project_id: string; organization_slug: string; slug: string }[] };
    expect(projects).toEqual([expect.objectContaining({ project_id: projectId, organization_slug: 'acme', slug: 'web' })]);
    const byId = await ok(alice, 'hydrate_project', { project_id: projectId });
    expect(await ok(alice, 'hydrate_project', { project_id: 'acme/web' })).toEqual(byId);
  });

  it('rate-limits test runs per subject, saying when to retry', async () => {
    const rita = await connect('rita');
    const { flow_id } = await ok(rita, 'create_flow', { project_id: projectId, name: 'Quick', slug: 'quick' });
    await ok(rita, 'add_block', { flow_id, name: 'echo', processor_type: 'passthrough' });
    await ok(rita, 'publish_version', { flow_id });
    const { test_case_id } = await ok(rita, 'create_test_case', { flow_id, name: 'echo', input: { message: 'hi' }, assertions: [{ type: 'path_equals', path: 'text', value: 'hi' }] });
    for (let i = 0; i < 8; i++) expect((await ok(rita, 'run_test_case', { test_case_id })).passed).toBe(true);
    expect(await errorText(rita, 'run_test_case', { test_case_id })).toMatch(/^RATE_LIMITED: At most 8 test runs a minute; retry in \d+ s/);
    // Another subject has a budget of its own.
    expect((await ok(await connect('alice'), 'run_test_case', { test_case_id: test_case_id })).passed).toBe(true);
  });

  describe('read only: the reading tools alone', () => {
    const READING_TOOLS = ['diff_versions', 'get_backtest', 'get_block', 'get_gate', 'get_step_trace', 'get_test_run_trace', 'hydrate_project', 'list_approvals', 'list_models', 'list_projects', 'list_runs', 'list_schedules', 'validate_draft'];
    const readOnlyUrl = () => `${origin}/api/v1/mcp/readonly`;
    const connectTo = async (url: string, token: string) => {
      const client = new Client({ name: 'test-assistant', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    };
    const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

    it('serves /api/v1/mcp/readonly as a resource of its own: its metadata, its challenge, and only the reading tools', async () => {
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/api/v1/mcp/readonly`)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ resource: readOnlyUrl(), authorization_servers: [issuer.issuer] });
      const challenge = (await post(undefined, undefined, {}).then(() => fetch(readOnlyUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))).headers.get('www-authenticate');
      expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1/mcp/readonly"`);

      for (const url of [readOnlyUrl(), `${readOnlyUrl()}/`]) {
        const client = await connectTo(url, await issuer.sign({ sub: 'alice', aud: readOnlyUrl() }));
        expect(await toolNames(client)).toEqual(READING_TOOLS);
        expect(client.getServerCapabilities()?.prompts).toBeUndefined();
        expect(client.getInstructions()).toMatch(/read only/);
        // A writing tool is not there to call, whatever the model tries.
        const refused = await call(client, 'create_flow', { project_id: projectId, name: 'Nope', slug: 'nope' });
        expect(refused.isError).toBe(true);
        expect((refused.content[0] as { text: string }).text).toMatch(/create_flow not found/);
        expect((await ok(client, 'list_projects', {})).projects.map((p: { project_id: string }) => p.project_id)).toContain(projectId);
      }
      // A token of the full endpoint does less here, and is taken; a read-only token does not open the full endpoint.
      expect(await toolNames(await connectTo(readOnlyUrl(), await issuer.sign({ sub: 'alice', aud: mcpUrl })))).toEqual(READING_TOOLS);
      expect((await post(await issuer.sign({ sub: 'alice', aud: readOnlyUrl() }))).status).toBe(401);
    });

    it('gives a token scoped mcp:read alone the reading tools on the full endpoint too', async () => {
      expect(await toolNames(await connectTo(mcpUrl, await issuer.sign({ sub: 'alice', aud: mcpUrl, scope: 'mcp:read' })))).toEqual(READING_TOOLS);
      expect(await toolNames(await connectTo(mcpUrl, await issuer.sign({ sub: 'alice', aud: mcpUrl, scope: 'mcp mcp:read' })))).toHaveLength(31);
    });
  });

  describe('prompts', () => {
    it('offers "triage failures" with the flow\'s failures as they are now, and "promote safely" with its gate', async () => {
      const client = await connect('alice');
      expect((await client.listPrompts()).prompts.map((p) => [p.name, p.title])).toEqual([['triage_failures', 'Triage failures'], ['promote_safely', 'Promote safely']]);
      const { flow_id } = await ok(client, 'create_flow', { project_id: projectId, name: 'Fragile', slug: 'fragile' });
      const block = await ok(client, 'add_block', { flow_id, name: 'check', processor_type: 'code', code: 'if (input.message === "bad") throw new Error("bad ticket"); return { ok: true };' });
      expect(block.step_id).toEqual(expect.any(String));
      const v1 = await ok(client, 'publish_version', { flow_id });
      await ok(client, 'set_production_version', { flow_id, version_id: v1.version_id });
      const failed = await fetch(`${origin}/api/v1/seq/acme/web/fragile/execute`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'bad' }) });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      await t.runtime.projections.catchUp();
      const [failedRun] = (await ok(client, 'list_runs', { flow_id, status: ['failed'] })).runs.map((r: { flow_run_id: string }) => r.flow_run_id);

      const triage = await client.getPrompt({ name: 'triage_failures', arguments: { flow_id } });
      const triageText = (triage.messages[0]!.content as { text: string }).text;
      expect(triageText).toMatch(new RegExp(`Flow 'fragile' \\(${flow_id}\\): 1 of its latest failed runs, by failure code:\\n- [A-Z_]+: 1 \\(e\\.g\\. flow_run_id ${failedRun}\\)`));
      expect(triageText).toContain('create_test_case_from_run(flow_run_id)');

      const promoteText = async () => ((await client.getPrompt({ name: 'promote_safely', arguments: { flow_id } })).messages[0]!.content as { text: string }).text;
      expect(await promoteText()).toContain(`Flow 'fragile' (${flow_id}): production is version 1; its gate: test cases are not required (get_gate/set_gate); no backtest rule.`);
      await ok(client, 'set_gate', { flow_id, tests_required: true, backtest_max_changed_percent: 10 });
      expect(await promoteText()).toContain(`Flow 'fragile' (${flow_id}): production is version 1; its gate: every test case must pass on the version; a finished backtest may change at most 10% of the answers.`);
      expect(await promoteText()).toMatch(/validate_draft[\s\S]*run_all_tests[\s\S]*backtest_version[\s\S]*set_production_version/);
      // Another organization's flow is not found here either.
      await expect((await connect('eve')).getPrompt({ name: 'triage_failures', arguments: { flow_id } })).rejects.toThrow(/FLOW_NOT_FOUND|No flow/);
    });
  });

  describe('sign-in and transport rules', () => {
    it('refuses every token that is not an OAuth JWT minted for this endpoint, with an RFC 9728 challenge', async () => {
      const metadataUrl = `${origin}/.well-known/oauth-protected-resource/api/v1/mcp/`;
      const refused: Record<string, string | undefined> = {
        'no token': undefined,
        'an API key': apiKey,
        'a token for the REST API audience': await issuer.sign({ sub: 'alice', aud: REST_AUDIENCE }),
        'a token for another resource': await issuer.sign({ sub: 'alice', aud: 'https://elsewhere.example/mcp/' }),
        'another issuer': await issuer.sign({ sub: 'alice', aud: mcpUrl, iss: 'https://evil.example/' }),
        'no subject': await issuer.sign({ aud: mcpUrl }),
        ...(await issuer.hostile('alice', mcpUrl)),
      };
      for (const [name, token] of Object.entries(refused)) {
        const response = await post(token);
        expect(response.status, name).toBe(401);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge, name).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="([^"]+)"$/);
        expect(challenge, name).toContain(`resource_metadata="${metadataUrl}"`);
        expect(await codeOf(response), name).toBe('UNAUTHENTICATED');
      }
      expect(await (await post(apiKey)).headers.get('www-authenticate')).toContain('API keys are not accepted here');
      expect((await post(await issuer.sign({ sub: 'alice', aud: mcpUrl }))).status).toBe(200);
    });

    it('serves the protected-resource metadata at the RFC 9728 paths, naming one canonical resource', async () => {
      for (const path of ['/.well-known/oauth-protected-resource/api/v1/mcp', '/.well-known/oauth-protected-resource/api/v1/mcp/', '/.well-known/oauth-protected-resource']) {
        const response = await fetch(`${origin}${path}`);
        expect(response.status, path).toBe(200);
        expect(await response.json(), path).toEqual({
          resource: mcpUrl,
          authorization_servers: [issuer.issuer],
          bearer_methods_supported: ['header'],
          resource_name: 'Seqflow assistant endpoint',
          resource_documentation: mcpUrl,
        });
      }
    });

    it('answers at /api/v1/mcp/ and at /api/v1/mcp alike (claude.ai drops the slash), never by a redirect; GET, DELETE and HEAD 405 with Allow: POST', async () => {
      const token = await issuer.sign({ sub: 'alice', aud: mcpUrl });
      for (const url of [mcpUrl, `${origin}/api/v1/mcp`]) {
        const ping = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), redirect: 'manual' });
        expect(ping.status, url).toBe(200);
        expect(await ping.json(), url).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
        const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', redirect: 'manual' });
        expect([unsigned.status, unsigned.headers.get('www-authenticate')], url).toEqual([401, expect.stringContaining('resource_metadata=')]);
        for (const method of ['GET', 'DELETE', 'HEAD']) {
          const response = await fetch(url, { method, headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
          expect(response.status, `${method} ${url}`).toBe(405);
          expect(response.headers.get('allow'), method).toBe('POST');
        }
      }
    });

    it('answers a HEAD without a token with the sign-in challenge, as a POST', async () => {
      const response = await fetch(mcpUrl, { method: 'HEAD' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1/mcp/"`);
    });

    it('answers CORS preflights before auth and refuses browser origins not in the allow list', async () => {
      const preflight = await fetch(mcpUrl, {
        method: 'OPTIONS',
        headers: { origin: 'https://claude.ai', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://claude.ai');
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Session-Id/);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Last-Event-ID/);

      const unauthenticated = await post(undefined, undefined, { origin: 'https://claude.ai' });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);

      const token = await issuer.sign({ sub: 'alice', aud: mcpUrl });
      const foreign = await post(token, undefined, { origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(await codeOf(foreign)).toBe('FORBIDDEN');
      expect((await fetch(mcpUrl, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })).status).toBe(403);
    });
  });
});
