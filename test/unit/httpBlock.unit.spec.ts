import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderRequest } from '../../src/domain/blocks/http/renderedRequest.ts';
import { requestIdempotencyKey } from '../../src/domain/blocks/http/requestIdempotencyKey.ts';
import { judgeAttempt } from '../../src/domain/blocks/http/requestOutcome.ts';
import { updateBlock } from '../../src/domain/flows/draftEdits.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';

const context = { message: 'hi', previous_output: null, parameters: { email: 'carol+vip@example.com', id: 'a/b' }, steps: {} };
const httpStep = (request: Record<string, unknown>, config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): StoredStep => ({ block: { id: 'h', name: 'call', processor_type: 'http', processor_config: { request: request as never, ...config }, ...extra } });

describe('an http block at publish', () => {
  it('needs a request whose URL writes out its scheme and host', () => {
    expect(validateFlowForPublish([{ block: { id: 'h', name: 'call', processor_type: 'http' } }])).toEqual(["steps[0].block (block 'call').processor_config.request: http blocks need a request (method and url)"]);
    expect(validateFlowForPublish([httpStep({ method: 'GET', url: '{{parameters.base}}/users' })])).toEqual([expect.stringContaining('.request.url: must start with http:// or https:// and the host written out')]);
    expect(validateFlowForPublish([httpStep({ method: 'GET', url: 'https://{{parameters.host}}/users' })])).toEqual([expect.stringContaining('.request.url: must start with http:// or https://')]);
    expect(validateFlowForPublish([httpStep({ method: 'GET', url: 'https://crm.example.com/users/{{parameters.id}}' })])).toEqual([]);
  });

  it('refuses a GET with a body, headers the service sets, and a schema for a text response', () => {
    expect(validateFlowForPublish([httpStep({ method: 'GET', url: 'https://crm.example.com/x', body: { a: 1 }, headers: { 'Idempotency-Key': 'mine', 'bad name': 'x' } }, { response_format: 'text' }, { output_schema: { type: 'object' } })])).toEqual([
      "steps[0].block (block 'call').processor_config.request.body: a GET request has no body",
      "steps[0].block (block 'call').processor_config.request.headers.Idempotency-Key: set by the service, not by a block",
      "steps[0].block (block 'call').processor_config.request.headers.bad name: not a header name",
      "steps[0].block (block 'call').output_schema: a text response has no schema (response_format json)",
    ]);
  });

  it('is refused its request on a block of another kind, and checks what its templates read', () => {
    const steps: StoredStep[] = [{ block: { id: 'c', name: 'tidy', processor_type: 'code', code: 'return 1;', processor_config: { request: { method: 'GET', url: 'https://x.example.com' } } } }];
    expect(validateFlowForPublish(steps)).toEqual(["steps[0].block (block 'tidy').processor_config: request: only http blocks make requests"]);
    expect(validateFlowForPublish([httpStep({ method: 'POST', url: 'https://x.example.com/{{steps.later.output}}', body: { who: '{{steps.later.output.name}}' } }), { block: { id: 'l', name: 'later', processor_type: 'passthrough' } }])).toEqual([
      "steps[0].block (block 'call'): the reference steps.later cannot be read: that block runs later (steps[1]); a block reads only blocks of earlier steps",
    ]);
  });

  it('takes an output schema but no prompt', () => {
    expect(() => updateBlock([httpStep({ method: 'GET', url: 'https://x.example.com' })], 'h', { prompt: 'hi' })).toThrow("prompt: only llm blocks have a prompt ('call' is http)");
  });
});

describe('a rendered request', () => {
  it('percent-encodes what it puts in the URL, and puts values in the body as JSON strings', () => {
    expect(renderRequest({ method: 'POST', url: 'https://crm.example.com/users/{{parameters.email}}/{{parameters.id}}?q=1', body: { who: '{{parameters.email}}', n: 2, tags: ['{{message}}'] } }, context)).toEqual({
      method: 'POST',
      url: 'https://crm.example.com/users/carol%2Bvip%40example.com/a%2Fb?q=1',
      headers: {},
      body: JSON.stringify({ who: 'carol+vip@example.com', n: 2, tags: ['hi'] }),
      missing: [],
    });
  });

  it('refuses a header that a value would split (a line break smuggled in by the run’s input)', () => {
    expect(renderRequest({ method: 'GET', url: 'https://x.example.com', headers: { 'x-user': '{{parameters.who}}' } }, { ...context, parameters: { who: 'carol\r\nx-admin: yes' } })).toEqual({ problem: 'the header x-user holds a line break or NUL once rendered' });
  });
});

describe('the Idempotency-Key of a request', () => {
  const call = fc.record({ executionId: fc.uuid(), stepIndex: fc.nat(50), blockName: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/), iteration: fc.option(fc.nat(100), { nil: null }), call: fc.string({ maxLength: 20 }) });

  it('is the same for the same call, whoever computes it, and fits the header', () => {
    fc.assert(fc.property(call, (c) => {
      const key = requestIdempotencyKey(c);
      expect(requestIdempotencyKey({ ...c })).toBe(key);
      expect(key).toMatch(/^[0-9a-f]{64}$/);
    }));
  });

  it('differs when any part of the call differs', () => {
    fc.assert(fc.property(call, call, (a, b) => {
      fc.pre(JSON.stringify(a) !== JSON.stringify(b));
      expect(requestIdempotencyKey(a)).not.toBe(requestIdempotencyKey(b));
    }));
  });
});

describe('an attempt’s verdict', () => {
  it('succeeds on an expected status, any 2xx unless the block lists its own', () => {
    expect(judgeAttempt('response', 204, undefined)).toEqual({ ok: true });
    expect(judgeAttempt('response', 200, [201])).toMatchObject({ ok: false, class: 'terminal', code: 'HTTP_STATUS_UNEXPECTED' });
  });

  it('tries again what says "later" or got no answer, and ends the rest at once', () => {
    for (const status of [408, 429, 500, 503]) expect(judgeAttempt('response', status, undefined)).toMatchObject({ ok: false, class: 'retryable' });
    for (const status of [301, 302, 400, 404, 422]) expect(judgeAttempt('response', status, undefined)).toMatchObject({ ok: false, class: 'terminal' });
    expect(judgeAttempt('timeout', null, undefined)).toMatchObject({ class: 'retryable', code: 'HTTP_REQUEST_FAILED' });
    expect(judgeAttempt('network_error', null, undefined)).toMatchObject({ class: 'retryable', code: 'HTTP_REQUEST_FAILED' });
    expect(judgeAttempt('blocked_address', null, undefined)).toMatchObject({ class: 'terminal', code: 'HTTP_BLOCKED_HOST' });
    expect(judgeAttempt('too_large', null, undefined)).toMatchObject({ class: 'terminal', code: 'HTTP_RESPONSE_TOO_LARGE' });
  });
});
