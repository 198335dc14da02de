import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';

const flows: Record<string, unknown[]> = {
  echo: [{ block: { name: 'echo', processor_type: 'code', code: 'return { got: input.parameters };' } }],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
  plain: [{ block: { name: 'plain', processor_type: 'llm', prompt: '{{message}}' } }],
  // Two flows whose output schemas share an $id but differ: each must validate with its own.
  'schema-a': [{ block: { name: 'a', processor_type: 'llm', prompt: 'a', output_schema: { $id: 'https://example.test/shared', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } }],
  'schema-b': [{ block: { name: 'b', processor_type: 'llm', prompt: 'b', output_schema: { $id: 'https://example.test/shared', type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] } } }],
};
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];

/** JSON text nested `levels` deep (built as text: JSON.stringify itself would overflow the stack). */
const nested = (levels: number) => `${'{"x":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('hostile input: 4xx in the spec shape, never a 500, nothing written', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  const raw = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as { detail: { code: string; message: string; errorId?: string; executionId?: string } } & Record<string, unknown> };
  };
  const execute = (flow: string, body: string) => raw('POST', `/seq/acme/web/${flow}/execute`, body);

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('hostile', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });

  it.each([
    ['NUL in a string', '{"message": "a\\u0000b"}', 'INVALID_TEXT', 'body.message contains a NUL'],
    ['NUL in a key', '{"message": "m", "parameters": {"k\\u0000": 1}}', 'INVALID_TEXT', 'body.parameters has a key that contains a NUL'],
    ['a lone high surrogate', '{"message": "\\ud800"}', 'INVALID_TEXT', 'unpaired UTF-16 surrogate'],
    ['a lone low surrogate in a key', '{"message": "m", "parameters": {"\\udc00x": 1}}', 'INVALID_TEXT', 'unpaired UTF-16 surrogate'],
    ['5,000 levels of nesting', `{"message": "m", "parameters": {"deep": ${nested(5000)}}}`, 'NESTING_TOO_DEEP', 'nests deeper than 64 levels'],
    ['4,000 levels of nesting for a code block', `{"message": "m", "parameters": ${nested(4000)}}`, 'NESTING_TOO_DEEP', 'nests deeper'],
    ['NUL in executionId', JSON.stringify({ executionId: 'x\u0000', pausedAtStep: 'agent', toolCallMessages: [], tools }), 'INVALID_TEXT', 'body.executionId'],
    ['deep toolCallMessages', `{"executionId": "x", "pausedAtStep": "agent", "toolCallMessages": [${nested(3000)}], "tools": ${JSON.stringify(tools)}}`, 'NESTING_TOO_DEEP', 'body.toolCallMessages[0]'],
    ['a __proto__ key', '{"message": "m", "parameters": {"__proto__": {"admin": true}}}', 'INVALID_JSON', 'keys named __proto__'],
    ['invalid JSON', '{"message": ', 'INVALID_JSON', 'The body is not valid JSON'],
    ['a number beyond double range', '{"message": "m", "parameters": {"n": 1e400}}', 'INVALID_JSON', 'body.parameters.n is a number beyond the range of a double'],
    ['a negative number beyond double range in a resume', `{"executionId": "x", "pausedAtStep": "agent", "toolCallMessages": [{"role": "tool", "content": "c", "n": -1e999}], "tools": ${JSON.stringify(tools)}}`, 'INVALID_JSON', 'body.toolCallMessages[0].n'],
  ])('refuses %s with 400', async (_label, body, code, message) => {
    const before = await t.runtime.eventStore.headPosition();
    const answer = await execute('echo', body);
    expect([answer.status, answer.body.detail.code]).toEqual([400, code]);
    expect(answer.body.detail.message).toContain(message);
    expect(await t.runtime.eventStore.headPosition()).toBe(before);
  });

  it.each([
    ['a negative count', '{"prompt_tokens": -5, "completion_tokens": 3, "total_tokens": -2}', 'prompt_tokens = -5'],
    ['an infinite count', '{"prompt_tokens": 1e400, "completion_tokens": 3, "total_tokens": 3}', 'prompt_tokens = Infinity'],
    ['a fractional count', '{"prompt_tokens": 4, "completion_tokens": 2.5, "total_tokens": 6.5}', 'completion_tokens = 2.5'],
    ['a count as text', '{"prompt_tokens": "12", "completion_tokens": 3, "total_tokens": 15}', 'prompt_tokens = "12"'],
  ])("fails a model call whose provider reports %s as PROVIDER_ERROR naming it, charging nothing", async (_label, rawUsage, named) => {
    server.script({ content: 'hi', rawUsage });
    const balance = async () => Number((await t.runtime.db.selectFrom('credit_balances').select('balance').executeTakeFirstOrThrow()).balance);
    await t.runtime.projections.catchUp();
    const before = await balance();
    const answer = await raw('POST', '/seq/acme/web/plain/execute', '{"message": "m"}');
    expect([answer.status, answer.body.detail.code]).toEqual([502, 'PROVIDER_ERROR']);
    expect(answer.body.detail.message).toContain(named);
    expect(answer.body.detail.message).not.toMatch(/counter/i);
    await t.runtime.projections.catchUp();
    expect(await balance()).toBe(before);
  });

  it('logs no credential a client sent in a URL: a token in the query, a pasted API key', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.c2ln';
    await fetch(`${base}/health?access_token=${token}`);
    await raw('GET', `/seq/acme/web/echo/jobs?limit=5&note=${encodeURIComponent(key)}`);
    const logs = t.logs();
    expect(logs).toContain('/health?access_token=[redacted]');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(key.slice(-64));
  });

  it('refuses NUL in a path segment (%00) with 400, not a database error', async () => {
    for (const path of ['/seq/acme/web/ec%00ho/execute', '/seq/acme/web/echo/jobs/a%00b', '/seq/ac%00me/web/echo/step/x']) {
      const answer = await raw(path.includes('execute') ? 'POST' : 'GET', path, path.includes('execute') ? '{"message":"m"}' : undefined);
      expect([answer.status, answer.body.detail.code]).toEqual([400, 'INVALID_TEXT']);
    }
  });

  it("answers Fastify's own refusals in the {detail: {code, message}} shape: 414, 431, bad URL encoding", async () => {
    const long = await raw('POST', `/seq/acme/web/${'f'.repeat(200)}/execute`, '{"message":"m"}');
    expect([long.status, long.body.detail.code]).toEqual([414, 'URL_TOO_LONG']);
    const badUrl = await raw('GET', '/seq/acme/web/echo/jobs/%E0%A4%A');
    expect([badUrl.status, badUrl.body.detail.code]).toEqual([400, 'URL_INVALID']);
    const huge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/health`, { headers: { 'x-big': 'x'.repeat(64 * 1024) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ detail: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
  });

  it('415 says to send Content-Type: application/json', async () => {
    const answer = await raw('POST', '/seq/acme/web/echo/execute', 'message=m', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([answer.status, answer.body.detail.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(answer.body.detail.message).toContain('Content-Type: application/json');
  });

  it('answers a wrong method on an existing path with 405 and Allow, not 404', async () => {
    for (const [method, path, allow] of [
      ['GET', '/seq/acme/web/echo/execute', 'OPTIONS, POST'],
      ['DELETE', '/seq/acme/web/echo/jobs/00000000-0000-4000-8000-000000000000', 'GET, HEAD, OPTIONS'],
      ['PUT', '/health', 'GET, HEAD, OPTIONS'],
      ['GET', '/organizations/x/webhooks/secret/rotate', 'OPTIONS, POST'],
    ] as const) {
      const answer = await raw(method, path);
      expect([answer.status, answer.body.detail.code, answer.headers.get('allow')]).toEqual([405, 'METHOD_NOT_ALLOWED', allow]);
    }
    expect((await raw('GET', '/seq/acme/web/echo/nothing-here')).status).toBe(404);
  });

  it('validates each flow against its own schema when two schemas share an $id', async () => {
    server.script({ content: { a: 'text' } }, { content: { b: 3 } });
    expect((await execute('schema-a', '{"message":"m"}')).body).toMatchObject({ status: 'completed', result: { a: 'text' } });
    expect((await execute('schema-b', '{"message":"m"}')).body).toMatchObject({ status: 'completed', result: { b: 3 } });
  });

  it('fails a provider that answers 200 with a page that is not its API\'s (text/html) as PROVIDER_ERROR, saying so, with no internal error text (issue 60 point 6)', async () => {
    for (const flow of ['plain', 'schema-a']) {
      server.script({ page: '<html><body>Sign in to the guest network</body></html>' }, { page: '<html>again</html>' }, { page: '<html>and again</html>' });
      const answer = await execute(flow, '{"message": "hi"}');
      expect(answer.status, JSON.stringify(answer.body)).toBe(502);
      expect(answer.body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringMatching(/^the model provider's answer is not a chat completion/) });
      expect(answer.body.detail.message).not.toMatch(/Cannot read|undefined|TypeError|\(reading/);
    }
    server.reset();
  });

  it('fails a model reply that cannot be stored as MODEL_OUTPUT_INVALID, and charges its tokens', async () => {
    server.script({ content: 'before\u0000after' });
    const answer = await execute('agent', '{"message":"m"}');
    expect([answer.status, answer.body.detail.code]).toEqual([502, 'MODEL_OUTPUT_INVALID']);
    const recorded = await t.runtime.eventStore.readStream(`execution-${answer.body.detail.executionId!}`);
    expect(recorded.map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepFailed', 'CreditsConsumed', 'ExecutionFailed']);
    // The refused reply is kept as the log can store it: the NUL shown as U+FFFD.
    expect(recorded[2]!.data).toMatchObject({ attempts: [{ reply: 'before\ufffdafter', replyLength: 12, rejection: expect.stringContaining('NUL') }] });
  });

  it('fails a model reply holding a number beyond double range as MODEL_OUTPUT_INVALID, never a 500', async () => {
    server.script({ content: '{"n": 1e400}' });
    const answer = await execute('agent', '{"message":"m"}');
    expect([answer.status, answer.body.detail.code]).toEqual([502, 'MODEL_OUTPUT_INVALID']);
    expect(answer.body.detail.message).toContain('reply.n is a number beyond the range of a double');
  });

  it('fails a model reply past SEQFLOW_LLM_MAX_REPLY_BYTES (8 MiB) with PROVIDER_ERROR naming the limit, and records no output', async () => {
    server.script({ content: 'x'.repeat(9 * 1024 * 1024) });
    const answer = await execute('agent', '{"message":"m"}');
    expect([answer.status, answer.body.detail.code]).toEqual([502, 'PROVIDER_ERROR']);
    expect(answer.body.detail.message).toContain('larger than 8388608 bytes (SEQFLOW_LLM_MAX_REPLY_BYTES)');
    const types = (await t.runtime.eventStore.readStream(`execution-${answer.body.detail.executionId!}`)).map((e) => e.type);
    expect(types).not.toContain('ExecutionStepCompleted');
    expect(types.at(-1)).toBe('ExecutionFailed');
  });
});
