import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestIdempotencyKey, serverToolCall } from '../../src/domain/blocks/http/requestIdempotencyKey.ts';
import { httpToolDefinitions } from '../../src/domain/blocks/llm/serverTools.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import { renderRequest } from '../../src/domain/blocks/http/renderedRequest.ts';

const lookup = { type: 'http' as const, name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } }, request: { method: 'GET' as const, url: 'https://crm.example.com/customers/{{arguments.id}}', headers: { authorization: 'Bearer {{secrets.crm}}' } } };
const agent = (config: Record<string, unknown>, extra: Record<string, unknown> = {}): StoredStep => ({ block: { id: 'a', name: 'agent', processor_type: 'llm', prompt: 'help', processor_config: config as never, ...extra } });
const at = "steps[0].block (block 'agent').processor_config.server_tools";

describe('server tools at publish', () => {
  it('take a request checked as an http block’s is, and a parameters schema of type object', () => {
    expect(validateFlowForPublish([agent({ server_tools: [lookup] })])).toEqual([]);
    expect(validateFlowForPublish([agent({ server_tools: [{ ...lookup, parameters: { type: 'string' }, request: { method: 'GET', url: 'https://{{arguments.host}}/x', body: { a: 1 } } }] })])).toEqual([
      `${at}[0] (tool 'lookup').parameters: must be a JSON Schema with "type": "object"`,
      `${at}[0] (tool 'lookup').request.url: must start with http:// or https:// and the host written out (placeholders may follow the host, never make it)`,
      `${at}[0] (tool 'lookup').request.body: a GET request has no body`,
    ]);
  });

  it('have names of their own, secrets the organization holds, and only llm blocks have them', () => {
    expect(validateFlowForPublish([agent({ server_tools: [lookup, lookup] })])).toEqual([`${at}[1] (tool 'lookup').name: 'lookup' is the name of another server tool of the block`]);
    expect(validateFlowForPublish([agent({ server_tools: [lookup] })], { secrets: ['other'] })).toEqual([`${at}[0] (tool 'lookup').request: {{secrets.crm}}: the organization has no secret 'crm' (seqflow secret set --org <org> --name crm)`]);
    expect(validateFlowForPublish([{ block: { id: 'p', name: 'tidy', processor_type: 'passthrough', processor_config: { server_tools: [lookup] } as never } }])).toEqual(["steps[0].block (block 'tidy').processor_config.server_tools: only llm blocks offer tools to a model"]);
  });

  it('read earlier blocks by name as any template does', () => {
    const reads = { ...lookup, request: { ...lookup.request, url: 'https://crm.example.com/{{steps.later.output.id}}' } };
    expect(validateFlowForPublish([agent({ server_tools: [reads] }), { block: { id: 'l', name: 'later', processor_type: 'passthrough' } }])).toEqual([
      "steps[0].block (block 'agent'): the reference steps.later cannot be read: that block runs later (steps[1]); a block reads only blocks of earlier steps",
    ]);
  });

  it('are offered to the model as functions, an empty object schema when they declare none', () => {
    const { parameters: _p, ...bare } = lookup;
    expect(httpToolDefinitions([bare])).toEqual([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }]);
  });

  it('render the call’s arguments into the request, encoded in the URL', () => {
    expect(renderRequest(lookup.request, { message: undefined, previous_output: null, parameters: {}, steps: {}, arguments: { id: 'c/7' } }, { crm: 'secret-value' })).toMatchObject({ url: 'https://crm.example.com/customers/c%2F7', headers: { authorization: 'Bearer secret-value' } });
  });
});

describe("a server tool call's Idempotency-Key", () => {
  const base = { executionId: 'e1', stepIndex: 0, blockName: 'agent', iteration: null };
  it('is the same for the same turn, tool and arguments whatever their key order, and differs when any of them does (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue(), { maxKeys: 5 }), (round, args) => {
        const reversed = Object.fromEntries(Object.entries(args).reverse());
        const key = (r: number, name: string, a: unknown) => requestIdempotencyKey({ ...base, call: serverToolCall(r, name, a) });
        expect(key(round, 'file', reversed)).toBe(key(round, 'file', args));
        expect(key(round + 1, 'file', args)).not.toBe(key(round, 'file', args));
        expect(key(round, 'other', args)).not.toBe(key(round, 'file', args));
        expect(key(round, 'file', { ...args, extra_arg: 1 })).not.toBe(key(round, 'file', args));
      }),
    );
  });
});

describe('mcp server tools at publish', () => {
  const orders = { type: 'mcp' as const, url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer {{secrets.orders}}' }, allowed_tools: ['lookup_order'] };
  it('reach a URL written out, with headers a request may carry, and allow names no other server tool of the block has', () => {
    expect(validateFlowForPublish([agent({ server_tools: [orders] })], { secrets: ['orders'] })).toEqual([]);
    expect(validateFlowForPublish([agent({ server_tools: [{ ...orders, url: '{{parameters.mcp}}', headers: { host: 'x' } }] })])).toEqual([
      `${at}[0] (mcp {{parameters.mcp}}).url: must start with http:// or https:// and the host written out (placeholders may follow the host, never make it)`,
      `${at}[0] (mcp {{parameters.mcp}}).headers.host: set by the service, not by a block`,
    ]);
    expect(validateFlowForPublish([agent({ server_tools: [{ ...lookup, name: 'lookup_order' }, orders] })])).toEqual([`${at}[1] (mcp https://mcp.example.com/mcp).allowed_tools: 'lookup_order' is the name of another server tool of the block`]);
    expect(validateFlowForPublish([agent({ server_tools: [orders] })], { secrets: [] })).toEqual([`${at}[0] (mcp https://mcp.example.com/mcp): {{secrets.orders}}: the organization has no secret 'orders' (seqflow secret set --org <org> --name orders)`]);
  });
});
