import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { findOrganizationId } from '../../src/commands/organizationCommands.ts';
import { setSecret } from '../../src/commands/secretCommands.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

const TOKEN = 'crm-token-5f1e9c';
const toolResult = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });

/**
 * Server tools (issue 61 point 1, an addition to the spec): an llm block's http tools, run by the
 * service against a real HTTPS server without pausing the run, beside a caller's tool that still
 * pauses it as the spec says. The model is the scripted OpenAI-compatible server, which refuses a
 * conversation whose tool calls are not all answered, as the real API does.
 */
describe('server tools on llm blocks', () => {
  let receiver: HttpsReceiver;
  let service: SeededService;
  let ticketTries = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((request, res) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end('no');
      if (request.path.startsWith('/customers/')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: decodeURIComponent(request.path.slice(11)), name: 'Carol', plan: 'gold' }));
      if (request.path === '/tickets') {
        if (ticketTries++ === 0) return res.writeHead(503).end('busy');
        return res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ticket: 'T-9', ...JSON.parse(request.body) }));
      }
      res.writeHead(404).end('no such thing');
    });
    service = await startSeededService('server_tools', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile, SEQFLOW_LLM_MAX_RETRIES: '0' });
    const organizationId = await findOrganizationId(service.t.runtime.commands, 'acme');
    await setSecret(service.t.runtime.commands, { organizationId, name: 'crm_token', value: TOKEN }, service.t.runtime.masterKey, testPrincipal);
    const auth = { authorization: 'Bearer {{secrets.crm_token}}' };
    const server_tools = [
      { type: 'http', name: 'lookup_customer', description: 'Look a customer up by id', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, request: { method: 'GET', url: `${receiver.url}/customers/{{arguments.id}}`, headers: auth } },
      { type: 'http', name: 'file_ticket', description: 'File a support ticket', parameters: { type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] }, request: { method: 'POST', url: `${receiver.url}/tickets`, headers: auth, body: { subject: '{{arguments.subject}}', channel: '{{parameters.channel}}' } } },
    ];
    for (const [slug, block] of Object.entries({
      support: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: 'Help with: {{message}}', processor_config: { server_tools } },
      mixed: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: 'Help with: {{message}}', processor_config: { server_tools, tools_enabled: true } },
    })) await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps: [{ block }] }, production: true }, testPrincipal);
    await service.t.runtime.projections.catchUp();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });
  beforeEach(() => service.model.reset());

  const eventsOf = async (executionId: string) => (await service.t.runtime.eventStore.readStream(executionStream(executionId))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  it('answers the model’s calls itself, one turn after another, and the run never pauses', async () => {
    service.model.script(
      { toolCalls: [{ id: 'call_a', name: 'lookup_customer', arguments: '{"id":"c 7"}' }], usage: { prompt_tokens: 10, completion_tokens: 5 } },
      { toolCalls: [{ id: 'call_b', name: 'file_ticket', arguments: '{"subject":"refund"}' }], usage: { prompt_tokens: 20, completion_tokens: 5 } },
      { content: 'Filed T-9 for Carol', usage: { prompt_tokens: 30, completion_tokens: 5 } },
    );
    const { status, body } = await service.execute('support', { message: 'my refund', parameters: { channel: 'email' } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ text: 'Filed T-9 for Carol' });

    const [first, second, third] = service.model.requests;
    expect((first!.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['lookup_customer', 'file_ticket']);
    expect(second!.body.messages.at(-1)).toEqual(toolResult('call_a', JSON.stringify({ status: 200, body: { id: 'c 7', name: 'Carol', plan: 'gold' } })));
    expect(third!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_b' });
    expect(JSON.parse(String(third!.body.messages.at(-1)!.content))).toEqual({ status: 201, body: { ticket: 'T-9', subject: 'refund', channel: 'email' } });

    // The lookup's argument was encoded into its path; the ticket's two tries carried one key.
    const sent = receiver.received;
    expect(sent.map((r) => r.path)).toEqual(['/customers/c%207', '/tickets', '/tickets']);
    const keys = sent.filter((r) => r.path === '/tickets').map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(keys[1]).toBe(keys[0]);

    const events = await eventsOf(body.executionId!);
    expect(events.map((e) => e.type)).not.toContain('ExecutionPausedForToolCalls');
    expect(events.filter((e) => e.type === 'ServerToolCalled').map((e) => [e.data.toolName, e.data.round, e.data.ok])).toEqual([['lookup_customer', 1, true], ['file_ticket', 2, true]]);
    expect(events.filter((e) => e.type === 'HttpRequestAttempted').map((e) => [e.data.toolName, e.data.toolCallId, e.data.status])).toEqual([['lookup_customer', 'call_a', 200], ['file_ticket', 'call_b', 503], ['file_ticket', 'call_b', 201]]);
    const completed = events.find((e) => e.type === 'ExecutionStepCompleted')!;
    expect(completed.data.usage).toEqual({ promptTokens: 60, completionTokens: 15, totalTokens: 75 });
    expect(events.filter((e) => e.type === 'CreditsConsumed').reduce((sum, e) => sum + Number(e.data.tokens), 0)).toBe(75);
    // The step's cost is every turn's, as each turn was charged.
    const charged = events.filter((e) => e.type === 'CreditsConsumed').reduce((sum, e) => sum + Number(e.data.costUsd), 0);
    expect(charged).toBeGreaterThan(0);
    expect(completed.data.costUsd).toBeCloseTo(charged, 12);
    const trace = await runTrace(service.t.runtime.eventStore, {}, body.executionId!);
    expect(JSON.stringify(trace.steps[0])).toContain('"requests":[{"attempt":1');
    expect(JSON.stringify(trace)).not.toContain(TOKEN);
  });

  it('tells the model what was wrong with its arguments, and lets it try again', async () => {
    service.model.script({ toolCalls: [{ id: 'call_x', name: 'lookup_customer', arguments: '{"customer":7}' }] }, { toolCalls: [{ id: 'call_y', name: 'lookup_customer', arguments: 'not json' }] }, { content: 'gave up' });
    const before = receiver.received.length;
    const { status } = await service.execute('support', { message: 'who am I' });
    expect(status).toBe(200);
    expect(receiver.received.length).toBe(before);
    expect(JSON.parse(String(service.model.requests[1]!.body.messages.at(-1)!.content))).toMatchObject({ error: "the arguments do not match the tool's parameters" });
    expect(JSON.parse(String(service.model.requests[2]!.body.messages.at(-1)!.content))).toEqual({ error: 'the arguments are not JSON' });
  });

  it('beside a caller’s tool: the service answers its own call, the run pauses for the caller’s only, and the resume goes on', async () => {
    const tools = [{ type: 'function', function: { name: 'ask_agent', parameters: { type: 'object', properties: {} } } }];
    service.model.script({ toolCalls: [{ id: 'call_1', name: 'lookup_customer', arguments: '{"id":"c1"}' }, { id: 'call_2', name: 'ask_agent', arguments: '{}' }] }, { content: 'resolved' });
    const paused = await service.execute('mixed', { message: 'refund?', tools });
    const pause = paused.body as unknown as { executionId: string; pausedAtStep: string; iterationsUsed: number; toolCalls: { id: string }[]; toolCallMessages: { role: string; tool_call_id?: string }[] };
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(pause.toolCalls.map((c) => c.id)).toEqual(['call_2']);
    expect(pause.toolCallMessages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });

    const answer = await fetch(`${service.base}/seq/acme/web/mixed/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, toolResult('call_2', 'approved')], tools }),
    });
    const done = (await answer.json()) as { result?: unknown };
    expect(answer.status, JSON.stringify(done)).toBe(200);
    expect(done.result).toEqual({ text: 'resolved' });
    expect(service.model.requests[1]!.body.messages.slice(-2).map((m) => (m as { tool_call_id?: string }).tool_call_id)).toEqual(['call_1', 'call_2']);
  });

  it('refuses a caller’s tool named as a server tool', async () => {
    const { status, body } = await service.execute('mixed', { message: 'x', tools: [{ type: 'function', function: { name: 'lookup_customer' } }] });
    expect(body.detail).toMatchObject({ code: 'TOOLS_INVALID', message: expect.stringContaining("'lookup_customer' has the name of a server tool") });
    expect(status).toBe(400);
  });
});
