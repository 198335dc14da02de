import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { findOrganizationId } from '../../src/commands/organizationCommands.ts';
import { setSecret } from '../../src/commands/secretCommands.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { MCP_IDEMPOTENCY_META } from '../../src/execution/blocks/mcpToolSource.ts';
import { type McpToolServer, startMcpToolServer } from '../support/mcpToolServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

const TOKEN = 'mcp-bearer-7c2d41';

/**
 * MCP server tools (issue 61 point 1): an llm block offered a remote MCP server's allowed tools,
 * listed and called through the MCP SDK's client over Streamable HTTP, against a real server built
 * with the SDK's server, behind a bearer credential kept as the organization's secret.
 */
describe('mcp server tools on llm blocks', () => {
  let mcp: McpToolServer;
  let service: SeededService;

  beforeAll(async () => {
    mcp = await startMcpToolServer(TOKEN);
    service = await startSeededService('mcp_server_tools', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: mcp.caFile, SEQFLOW_LLM_MAX_RETRIES: '0' });
    const organizationId = await findOrganizationId(service.t.runtime.commands, 'acme');
    await setSecret(service.t.runtime.commands, { organizationId, name: 'orders_mcp', value: TOKEN }, service.t.runtime.masterKey, testPrincipal);
    const orders = { type: 'mcp', url: mcp.url, headers: { authorization: 'Bearer {{secrets.orders_mcp}}' }, allowed_tools: ['lookup_order', 'refund_order'] };
    const flows = {
      orders: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: 'Handle: {{message}}', processor_config: { server_tools: [orders] } } }],
      unreachable: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o', prompt: 'Handle: {{message}}', processor_config: { server_tools: [{ ...orders, url: mcp.url.replace(/:\d+\//, ':1/') }] } } }],
    };
    for (const [slug, steps] of Object.entries(flows)) await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    await service.t.runtime.projections.catchUp();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await mcp?.close();
  });
  beforeEach(() => service.model.reset());

  it('offers only the allowed tools, with the server’s schemas, calls them for the model, and never pauses', async () => {
    service.model.script(
      { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: '{"id":"o-1"}' }] },
      { toolCalls: [{ id: 'c2', name: 'refund_order', arguments: '{"id":"o-1","amount":500}' }, { id: 'c3', name: 'refund_order', arguments: '{"id":"o-1","amount":42}' }] },
      { content: 'Refunded 42' },
    );
    const { status, body } = await service.execute('orders', { message: 'refund o-1' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ text: 'Refunded 42' });

    const offered = service.model.requests[0]!.body.tools as { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
    expect(offered.map((t) => t.function.name)).toEqual(['lookup_order', 'refund_order']);
    expect(Object.keys(offered[1]!.function.parameters.properties)).toEqual(['id', 'amount']);
    expect(service.model.requests[1]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ id: 'o-1', status: 'shipped', total: 42 }) });
    const [refused, refunded] = service.model.requests[2]!.body.messages.slice(-2) as { content: string }[];
    expect(JSON.parse(refused!.content)).toEqual({ error: 'refunds over 100 need a manager' });
    expect(refunded!.content).toBe('refunded 42 on o-1');

    expect(mcp.calls.map((c) => c.name)).toEqual(['lookup_order', 'refund_order', 'refund_order']);
    const keys = mcp.calls.map((c) => c.meta?.[MCP_IDEMPOTENCY_META]);
    expect(keys.every((k) => typeof k === 'string' && /^[0-9a-f]{64}$/.test(k))).toBe(true);
    expect(new Set(keys).size).toBe(3);
    expect(mcp.authorizations.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);

    const events = (await service.t.runtime.eventStore.readStream(executionStream(body.executionId!))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
    expect(events.map((e) => e.type)).not.toContain('ExecutionPausedForToolCalls');
    expect(events.filter((e) => e.type === 'ServerToolCalled').map((e) => [e.data.toolType, e.data.toolName, e.data.ok])).toEqual([['mcp', 'lookup_order', true], ['mcp', 'refund_order', false], ['mcp', 'refund_order', true]]);
  });

  it('a call of a tool the block does not allow is refused before it reaches the server', async () => {
    service.model.script({ toolCalls: [{ id: 'x', name: 'delete_everything', arguments: '{}' }] });
    const before = mcp.calls.length;
    const { status, body } = await service.execute('orders', { message: 'wipe it' });
    expect(body.detail?.code).toBe('MODEL_OUTPUT_INVALID');
    expect(status).toBe(502);
    expect(mcp.calls.length).toBe(before);
  });

  it('a server that cannot be reached fails the step MCP_SERVER_FAILED, after the retries', async () => {
    const { status, body } = await service.execute('unreachable', { message: 'hi' });
    expect(body.detail?.code).toBe('MCP_SERVER_FAILED');
    expect(status).toBe(502);
    expect(service.model.requests).toHaveLength(0);
  });
});
