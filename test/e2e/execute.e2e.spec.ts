import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization, setProviderKey } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import type { RecordedEvent } from '../../src/eventstore/eventStore.ts';
import { creditBalance } from '../../src/queries/creditQueries.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { allEventText, countEventRows } from '../support/testDatabase.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { eventsApart } from '../support/runEventsApart.ts';

const essayFlow = JSON.parse(readFileSync(new URL('../../examples/essay-feedback.flow.json', import.meta.url), 'utf8'));
const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
const llm = (name: string, extra: Record<string, unknown> = {}) => ({ name, processor_type: 'llm', model: 'gpt-4o-mini', prompt: `${name}: {{message}}`, ...extra });
const code = (name: string, source: string) => ({ name, processor_type: 'code', code: source });

/** What /execute answers: a completion, or `{detail}` on an error. */
interface ExecuteAnswer {
  status?: string;
  result?: unknown;
  executionId: string;
  detail: { code: string; message: string; executionId: string; [field: string]: unknown };
  [field: string]: unknown;
}

const flows: Record<string, unknown[]> = {
  pipeline: [{ block: code('shout', 'return { text: input.message.toUpperCase(), n: input.parameters.n };') }, { block: { name: 'relay', processor_type: 'passthrough' } }, { block: llm('summarise', { prompt: 'Summarise {{previous_output.text}} ({{previous_output.n}})' }) }],
  shapes: [
    { parallel: [code('a', 'return { items: [1, 2, 3] };'), code('b', 'return input.message.length;')] },
    { loop: { over: 'previous_output.a.items', block: code('square', 'return input.previous_output * input.previous_output;') } },
    { block: { name: 'last', processor_type: 'passthrough' } },
  ],
  template: [{ block: llm('greet', { prompt: 'Hello {{parameters.name}}, [{{parameters.missing}}] [{{previous_output.x}}] {{ message }}' }) }],
  structured: [{ block: llm('answer', { output_schema: schema }) }],
  vision: [{ block: llm('look', { model: 'gpt-4o' }) }, { block: llm('textonly_but_opted_out', { model: 'gpt-3.5-turbo', processor_config: { receive_attachments: false } }) }],
  textonly: [{ block: llm('read', { model: 'gpt-3.5-turbo' }) }],
  codefail: [{ block: code('boom', 'throw new Error("kaput");') }],
  hugefail: [{ block: code('boom', 'throw "x".repeat(2000000);') }],
  loopbad: [{ loop: { over: 'parameters.list', block: code('each', 'return 1;') } }],
  jsonreply: [{ block: llm('first') }, { block: llm('second', { prompt: 'Verdict {{previous_output.verdict}}' }) }],
  relayonly: [{ block: { name: 'relay', processor_type: 'passthrough' } }],
  number: [{ block: code('count', 'return input.message.length;') }],
  // Schemas as users write them: open objects, optional properties, a free-form map.
  usual: [{ block: llm('detect', { output_schema: { type: 'object', properties: { language_code: { type: 'string' }, note: { type: 'string' } }, required: ['language_code'] } }) }],
  freeform: [{ block: llm('tags', { output_schema: { type: 'object', properties: { tags: { type: 'object' } }, required: ['tags'] } }) }],
};

describe('POST /execute (real API, real keys, real PostgreSQL, scripted model server)', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let brokeKey: string;
  let byokKey: string;
  let inwardKey: string;
  let acmeId: string;

  const post = async (flow: string, body: unknown, apiKey = key, path = 'acme/web') => {
    const response = await fetch(`${base}/seq/${path}/${flow}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as ExecuteAnswer };
  };
  // A run's events with each joined start apart (runEventsApart.ts): what a run did, whatever the timing of its appends.
  const events = async (executionId: string) => eventsApart(await t.runtime.eventStore.readStream(`execution-${executionId}`));
  const types = (list: RecordedEvent[]) => list.map((e) => e.type);
  const logLength = () => countEventRows(t.database.url);

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('execute', {
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: 'service-key',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_LLM_TIMEOUT_MS: '400',
      SEQFLOW_LLM_MAX_RETRIES: '2',
      SEQFLOW_LOOP_MAX_ITEMS: '5',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
    });
    const deps = t.runtime.commands;
    acmeId = (await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'other', name: 'Other' }, testPrincipal);
    for (const [slug, steps] of Object.entries(flows)) await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: essayFlow, production: true }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'draft-only', name: 'Draft', steps: flows.codefail } }, testPrincipal);
    key = (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;

    await createOrganization(deps, { slug: 'broke', name: 'Broke', initialCredits: 0 }, testPrincipal);
    await createProject(deps, { organizationSlug: 'broke', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'broke', projectSlug: 'web', file: { slug: 'structured', name: 's', steps: flows.structured }, production: true }, testPrincipal);
    await importFlow(deps, { organizationSlug: 'broke', projectSlug: 'web', file: { slug: 'pipeline-free', name: 'p', steps: flows.shapes }, production: true }, testPrincipal);
    brokeKey = (await createApiKey(deps, { organizationSlug: 'broke', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;

    await createOrganization(deps, { slug: 'byok', name: 'Own key' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'byok', slug: 'web', name: 'Web' }, testPrincipal);
    await setProviderKey(deps, { organizationSlug: 'byok', key: 'sk-org-own-key-1234' }, t.runtime.masterKey, testPrincipal);
    await importFlow(deps, { organizationSlug: 'byok', projectSlug: 'web', file: { slug: 'structured', name: 's', steps: flows.structured }, production: true }, testPrincipal);
    byokKey = (await createApiKey(deps, { organizationSlug: 'byok', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;

    // An organization whose own provider URL points inside the network: the guard must stop it.
    await createOrganization(deps, { slug: 'inward', name: 'Inward' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'inward', slug: 'web', name: 'Web' }, testPrincipal);
    await setProviderKey(deps, { organizationSlug: 'inward', key: 'sk-inward', baseUrl: 'https://169.254.169.254/v1' }, t.runtime.masterKey, testPrincipal);
    await importFlow(deps, { organizationSlug: 'inward', projectSlug: 'web', file: { slug: 'structured', name: 's', steps: flows.structured }, production: true }, testPrincipal);
    inwardKey = (await createApiKey(deps, { organizationSlug: 'inward', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;

    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  describe('the spec example: language detection -> grading -> translation', () => {
    it('runs the three blocks, feeds each one the previous output, and returns the last structured output', async () => {
      const grading = {
        overall_score: 72,
        issues: [{ category: 'grammar', excerpt: 'he go', explanation: 'Subject-verb agreement.', suggested_rewrite: 'he goes' }],
      };
      const translated = { ...grading, issues: [{ ...grading.issues[0], explanation: 'Concordancia sujeto-verbo.', suggested_rewrite: 'he goes' }] };
      server.script(
        { content: { language_code: 'en', language_name: 'English' }, usage: { prompt_tokens: 50, completion_tokens: 10 } },
        { content: grading, usage: { prompt_tokens: 80, completion_tokens: 40 } },
        { content: translated, usage: { prompt_tokens: 90, completion_tokens: 45 } },
      );
      const before = await creditBalance(t.runtime.db, acmeId);

      const { status, body } = await post('essay-feedback', { message: 'Yesterday he go to school.', parameters: { native_language: 'Spanish' } });
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'completed', result: translated, flowId: expect.any(String), blockCount: 3, executionId: expect.any(String) });

      const [detect, grade, translate] = server.requests;
      expect(detect!.body.messages[0]!.content).toContain('Yesterday he go to school.');
      expect(detect!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'detect_language', strict: true, schema: essayFlow.steps[0].block.output_schema } });
      expect(grade!.body.messages[0]!.content).toContain('Grade this essay written in English (en)');
      expect(translate!.body.messages[0]!.content).toContain('into Spanish');
      expect(translate!.body.messages[0]!.content).toContain(JSON.stringify(grading));
      expect(detect!.headers.authorization).toBe('Bearer service-key');

      const recorded = await events(body.executionId);
      expect(types(recorded)).toEqual([
        'ExecutionRequested',
        'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed',
        'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed',
        'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed',
        'ExecutionCompleted',
      ]);
      expect(recorded[0]!.data).toMatchObject({ mode: 'sync', versionNumber: 1, message: 'Yesterday he go to school.', parameters: { native_language: 'Spanish' } });
      expect(recorded[2]!.data).toMatchObject({ blockName: 'detect_language', output: { language_code: 'en', language_name: 'English' }, model: 'gpt-4o-mini', usage: { totalTokens: 60 }, attempts: 1 });
      expect(recorded.at(-1)!.data).toMatchObject({ result: translated });

      await t.runtime.projections.waitForPosition(recorded.at(-1)!.position);
      expect(await creditBalance(t.runtime.db, acmeId)).toBe(before - 60 - 120 - 135);
    });
  });

  describe('block types and step shapes', () => {
    it('runs code -> passthrough -> llm; a text reply without a schema is the result {text}', async () => {
      server.script({ content: 'A short summary.' });
      const { status, body } = await post('pipeline', { message: 'hello', parameters: { n: 3 } });
      expect(status).toBe(200);
      expect(body.result).toEqual({ text: 'A short summary.' });
      expect(server.requests[0]!.body.messages[0]!.content).toBe('Summarise HELLO (3)');
      const recorded = await events(body.executionId);
      const relay = recorded.find((e) => e.type === 'ExecutionStepCompleted' && (e.data as { blockName: string }).blockName === 'relay');
      expect(relay!.data).toMatchObject({ output: { text: 'HELLO', n: 3 }, model: null, usage: null });
    });

    it('runs parallel blocks into an object keyed by name, and a loop into an array of results (the result {value})', async () => {
      const { status, body } = await post('shapes', { message: 'four' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ value: [1, 4, 9] });
      const completed = (await events(body.executionId)).filter((e) => e.type === 'ExecutionStepCompleted').map((e) => e.data as { blockName: string; iteration: number | null; output: unknown });
      expect(completed.filter((c) => c.blockName === 'square').map((c) => [c.iteration, c.output]).sort()).toEqual([[0, 1], [1, 4], [2, 9]]);
      expect(completed.find((c) => c.blockName === 'b')!.output).toBe(4);
      expect(server.requests).toHaveLength(0);
    });

    it('renders absent placeholders as empty and reports them in the step event', async () => {
      const { status, body } = await post('template', { message: 'hi', parameters: { name: 'Ada' } });
      expect(status).toBe(200);
      expect(server.requests[0]!.body.messages[0]!.content).toBe('Hello Ada, [] [] hi');
      const started = (await events(body.executionId)).find((e) => e.type === 'ExecutionStepStarted')!;
      expect(started.data).toMatchObject({ input: { prompt: 'Hello Ada, [] [] hi' }, missingPlaceholders: ['parameters.missing', 'previous_output.x'] });
    });
  });

  describe('result is always a JSON object', () => {
    it('an llm reply that is a JSON object is that object without a schema, for the result and the next block', async () => {
      server.script({ content: '{"verdict": "ok", "tool_results": [{"id": 1}]}' }, { content: '{"tool_results": [{"id": 2}]}' });
      const { status, body } = await post('jsonreply', { message: 'q' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ tool_results: [{ id: 2 }] });
      expect(server.requests[1]!.body.messages[0]!.content).toBe('Verdict ok');
      expect((await events(body.executionId)).at(-1)!.data).toMatchObject({ result: { tool_results: [{ id: 2 }] } });
    });

    it('wraps text as {text} and other values as {value}', async () => {
      expect((await post('relayonly', { message: 'as is' })).body.result).toEqual({ text: 'as is' });
      expect((await post('number', { message: 'four' })).body.result).toEqual({ value: 4 });
      server.script({ content: '[1, 2]' });
      expect((await post('textonly', { message: 'q' })).body.result).toEqual({ text: '[1, 2]' });
    });
  });

  describe('structured output', () => {
    it('sends a schema as users write it in strict mode, made strict-compatible, and validates against the original', async () => {
      server.script({ content: { language_code: 'en', note: null } });
      const { status, body } = await post('usual', { message: 'hello' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ language_code: 'en' });
      const sent = server.requests[0]!.body.response_format!.json_schema!;
      expect(sent).toMatchObject({ strict: true, schema: { additionalProperties: false } });
      expect([...(sent.schema as { required: string[] }).required].sort()).toEqual(['language_code', 'note']);
      const started = (await events(body.executionId)).find((e) => e.type === 'ExecutionStepStarted')!;
      expect(started.data).toMatchObject({ input: { responseFormat: { type: 'json_schema', strict: true } } });
    });

    it('sends a schema that strict mode cannot express non-strict and unchanged, and records why', async () => {
      server.script({ content: { tags: { a: 1 } } });
      const { status, body } = await post('freeform', { message: 'hello' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ tags: { a: 1 } });
      expect(server.requests[0]!.body.response_format!.json_schema).toEqual({ name: 'tags', strict: false, schema: (flows.freeform![0] as { block: { output_schema: unknown } }).block.output_schema });
      const started = (await events(body.executionId)).find((e) => e.type === 'ExecutionStepStarted')!;
      expect(started.data).toMatchObject({ input: { responseFormat: { type: 'json_schema', strict: false, reason: expect.stringContaining('without properties') } } });
    });

    it('repairs once when the model ignores the schema, then succeeds', async () => {
      server.script({ content: 'not json' }, { content: { answer: 'yes' } });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ answer: 'yes' });
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      const completed = (await events(body.executionId)).find((e) => e.type === 'ExecutionStepCompleted')!;
      expect(completed.data).toMatchObject({ attempts: 2, usage: { totalTokens: 30 } });
    });

    it('fails with MODEL_OUTPUT_INVALID after one repair attempt, still charging the tokens used', async () => {
      server.script({ content: { wrong: 1 } }, { content: { answer: 42 } });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(502);
      expect(body.detail).toMatchObject({ code: 'MODEL_OUTPUT_INVALID', failureReason: 'error', step_name: 'answer', executionId: expect.any(String) });
      expect(server.requests).toHaveLength(2);
      // The failed step is recorded with its replies, in the append that charges their tokens.
      expect(types(await events(body.detail.executionId))).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepFailed', 'CreditsConsumed', 'ExecutionFailed']);
    });
  });

  describe('provider failures', () => {
    it('retries 429 and 5xx with backoff, then succeeds', async () => {
      server.script({ status: 429, headers: { 'retry-after-ms': '5' } }, { status: 503, headers: { 'retry-after-ms': '5' } }, { content: { answer: 'late' } });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(200);
      expect(body.result).toEqual({ answer: 'late' });
      expect(server.requests).toHaveLength(3);
      // The trace (and the console's waterfall) counts the retries: three requests, two unanswered.
      const step = (await runTrace(t.runtime.eventStore, {}, body.executionId)).steps[0]!;
      expect(step).toMatchObject({ status: 'completed', attempts: 3 });
      expect((step.modelCalls as { outcome: string }[]).map((c) => c.outcome)).toEqual(['failed', 'failed', 'answered']);
    });

    it('does not wait for a Retry-After longer than SEQFLOW_LLM_MAX_RETRY_WAIT_MS: the call fails at once, saying so', async () => {
      server.script({ status: 429, headers: { 'retry-after': '3600' } }, { content: { answer: 'never asked' } });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(502);
      expect(body.detail).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringContaining('it asked to be called again in 3600000 ms, longer than SEQFLOW_LLM_MAX_RETRY_WAIT_MS') });
      expect(server.requests).toHaveLength(1);
    });

    it('fails with PROVIDER_ERROR once the bounded retries are used up', async () => {
      server.respond = () => ({ status: 500, headers: { 'retry-after-ms': '5' } });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(502);
      expect(body.detail).toMatchObject({ code: 'PROVIDER_ERROR', failureReason: 'error' });
      expect(body.detail.message).toContain('HTTP 500');
      expect(server.requests).toHaveLength(3);
      // Three requests made, none answered: not `attempts: 0`.
      const step = (await runTrace(t.runtime.eventStore, {}, body.detail.executionId)).steps[0]!;
      expect(step).toMatchObject({ status: 'failed', attempts: 3 });
      expect((step.modelCalls as { outcome: string }[]).map((c) => c.outcome)).toEqual(['failed', 'failed', 'failed']);
    });

    it('fails with PROVIDER_TIMEOUT when the model does not answer in time', async () => {
      server.respond = () => ({ content: { answer: 'too late' }, delayMs: 1500 });
      const { status, body } = await post('structured', { message: 'q' });
      expect(status).toBe(504);
      expect(body.detail).toMatchObject({ code: 'PROVIDER_TIMEOUT', failureReason: 'error' });
    });
  });

  describe('credits and own provider keys', () => {
    it('fails a run that needs a model with 402 CREDITS_EXHAUSTED when the organization has no credits', async () => {
      const { status, body } = await post('structured', { message: 'q' }, brokeKey, 'broke/web');
      expect(status).toBe(402);
      expect(body.detail).toMatchObject({ code: 'CREDITS_EXHAUSTED', failureReason: 'credits_exhausted' });
      expect(body.detail.message).toContain('seqflow org credits --org <slug> --grant <tokens>');
      expect(server.requests).toHaveLength(0);
      expect(types(await events(body.detail.executionId))).toEqual(['ExecutionRequested', 'ExecutionFailed']);
      // Runs without llm blocks cost no tokens and still work.
      expect((await post('pipeline-free', { message: 'abc' }, brokeKey, 'broke/web')).status).toBe(200);
    });

    it("calls the provider with the organization's own key, and fails with 424 BYOK_REJECTED when the provider refuses it", async () => {
      server.respond = (request) => (request.headers.authorization === 'Bearer sk-org-own-key-1234' ? { status: 401 } : { content: { answer: 'service key' } });
      const { status, body } = await post('structured', { message: 'q' }, byokKey, 'byok/web');
      expect(status).toBe(424);
      expect(body.detail).toMatchObject({ code: 'BYOK_REJECTED', failureReason: 'byok_rejected' });
      expect(server.requests.every((r) => r.headers.authorization === 'Bearer sk-org-own-key-1234')).toBe(true);
      const failed = (await events(body.detail.executionId)).at(-1)!;
      expect(failed.data).toMatchObject({ reason: 'byok_rejected', code: 'BYOK_REJECTED' });
    });

    it("refuses an organization's provider URL that resolves inside the network, before connecting", async () => {
      const { status, body } = await post('structured', { message: 'q' }, inwardKey, 'inward/web');
      expect(status).toBe(502);
      expect(body.detail).toMatchObject({ code: 'PROVIDER_ERROR', failureReason: 'error' });
      expect(body.detail.message).toContain('169.254.169.254 is a linkLocal address');
      expect(server.requests).toHaveLength(0);
    });

    it('keeps the own key encrypted in the log', async () => {
      const log = await allEventText(t.database.url);
      expect(log).toContain('ProviderKeySet');
      expect(log).not.toContain('sk-org-own-key-1234');
    });
  });

  describe('attachments', () => {
    const image = (over: Record<string, unknown> = {}) => ({ kind: 'url', url: 'https://93.184.216.34/cat.png', mime_type: 'image/png', filename: 'cat.png', ...over });

    it('sends the images to vision models as image_url parts, and not to blocks that opt out', async () => {
      server.script({ content: 'a cat' }, { content: 'done' });
      const { status } = await post('vision', { message: 'what is this?', attachments: [image(), image({ url: 'https://8.8.8.8/dog.webp', mime_type: 'image/webp' })] });
      expect(status).toBe(200);
      expect(server.requests[0]!.body.messages[0]!.content).toEqual([
        { type: 'text', text: 'look: what is this?' },
        { type: 'image_url', image_url: { url: 'https://93.184.216.34/cat.png' } },
        { type: 'image_url', image_url: { url: 'https://8.8.8.8/dog.webp' } },
      ]);
      expect(server.requests[1]!.body.messages[0]!.content).toBe('textonly_but_opted_out: what is this?');
    });

    it.each([
      ['ATTACHMENT_LIMIT_EXCEEDED', Array.from({ length: 11 }, () => image())],
      ['ATTACHMENT_INVALID_SCHEME', [image({ url: 'http://93.184.216.34/cat.png' })]],
      ['ATTACHMENT_INVALID_SCHEME', [image({ url: 'data:image/png;base64,iVBORw0KGgo=' })]],
      ['ATTACHMENT_INVALID_SCHEME', [image({ url: 'blob:https://example.com/1234' })]],
      ['ATTACHMENT_URL_TOO_LONG', [image({ url: `https://93.184.216.34/${'a'.repeat(2048)}.png` })]],
      ['ATTACHMENT_UNSUPPORTED_MIME', [image({ mime_type: 'application/pdf' })]],
      ['ATTACHMENT_INVALID_FILENAME', [image({ filename: '../etc/passwd' })]],
      ['ATTACHMENT_INVALID_FILENAME', [image({ filename: 'a\\b.png' })]],
      ['ATTACHMENT_INVALID_FILENAME', [image({ filename: `${'x'.repeat(256)}.png` })]],
      ['ATTACHMENT_BLOCKED_HOST', [image({ url: 'https://169.254.169.254/latest/meta-data' })]],
      ['ATTACHMENT_BLOCKED_HOST', [image({ url: 'https://0x0a000001/cat.png' })]],
      ['ATTACHMENT_BLOCKED_HOST', [image({ url: 'https://[::ffff:192.168.0.1]/cat.png' })]],
      ['ATTACHMENT_BLOCKED_HOST', [image({ url: 'https://[::a9fe:a9fe]/cat.png' })]],
      ['ATTACHMENT_BLOCKED_HOST', [image({ url: 'https://[::10.0.0.1]/cat.png' })]],
      // The first failing rule in the spec's order wins: count before scheme, scheme before MIME, MIME before filename.
      ['ATTACHMENT_LIMIT_EXCEEDED', Array.from({ length: 11 }, () => image({ url: 'http://x' }))],
      ['ATTACHMENT_INVALID_SCHEME', [image({ mime_type: 'application/pdf' }), image({ url: 'ftp://93.184.216.34/x' })]],
      ['ATTACHMENT_UNSUPPORTED_MIME', [image({ filename: '../x' }), image({ mime_type: 'video/mp4' })]],
    ])('refuses with 400 %s before any work or event', async (expectedCode, attachments) => {
      const before = await logLength();
      const { status, body } = await post('vision', { message: 'x', attachments });
      expect(status).toBe(400);
      expect(body.detail.code).toBe(expectedCode);
      expect(server.requests).toHaveLength(0);
      expect(await logLength()).toBe(before);
    });

    it('refuses 400 MODEL_MIME_INCOMPATIBLE naming the block (step_id) and model', async () => {
      const before = await logLength();
      const { status, body } = await post('textonly', { message: 'x', attachments: [image()] });
      expect(status).toBe(400);
      expect(body.detail).toMatchObject({ code: 'MODEL_MIME_INCOMPATIBLE', step_id: expect.any(String), step_name: 'read', model: 'gpt-3.5-turbo', mime_type: 'image/png' });
      expect(await logLength()).toBe(before);
    });
  });

  describe('request validation and other errors', () => {
    it.each([
      [{ message: 'x', colour: 'red' }, 'colour: unknown field'],
      [{ message: 42 }, 'message: '],
      [{ message: 'x', parameters: 'nope' }, 'parameters: '],
      [{ message: 'x', attachments: [{ kind: 'file', url: 'https://8.8.8.8/a.png', mime_type: 'image/png' }] }, 'attachments[0].kind: '],
      [{ parameters: {} }, 'message: required'],
    ])('answers 422 REQUEST_INVALID naming the field for %o', async (requestBody, fieldMention) => {
      const { status, body } = await post('pipeline', requestBody);
      expect(status).toBe(422);
      expect(body.detail.code).toBe('REQUEST_INVALID');
      expect(body.detail.message).toContain(fieldMention);
    });

    it('answers 400 PARAMETER_NAME_RESERVED for parameters.attachments', async () => {
      const { status, body } = await post('pipeline', { message: 'x', parameters: { attachments: [] } });
      expect(status).toBe(400);
      expect(body.detail.code).toBe('PARAMETER_NAME_RESERVED');
    });

    it('ignores callbackUrl and callbackEvents on /execute', async () => {
      const { status } = await post('shapes', { message: 'x', callbackUrl: 'http://127.0.0.1/not-checked', callbackEvents: ['flow.completed'] });
      expect(status).toBe(200);
    });

    it('answers 404 NO_PRODUCTION_VERSION for a flow never set to production, and FLOW_NOT_FOUND for unknown or foreign flows', async () => {
      expect((await post('draft-only', { message: 'x' })).body.detail.code).toBe('NO_PRODUCTION_VERSION');
      expect((await post('draft-only', { message: 'x' })).status).toBe(404);
      expect((await post('nope', { message: 'x' })).body.detail.code).toBe('FLOW_NOT_FOUND');
      expect((await post('structured', { message: 'x' }, brokeKey)).status).toBe(404);
    });

    it('answers 422 TOOLS_NOT_ENABLED when tools are sent to a flow without tool-enabled blocks', async () => {
      const { status, body } = await post('pipeline', { message: 'x', tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } }] });
      expect(status).toBe(422);
      expect(body.detail.code).toBe('TOOLS_NOT_ENABLED');
    });

    it('fails a throwing code block with 422 CODE_BLOCK_FAILED, recorded as failed with reason error', async () => {
      const { status, body } = await post('codefail', { message: 'x' });
      expect(status).toBe(422);
      expect(body.detail).toMatchObject({ code: 'CODE_BLOCK_FAILED', failureReason: 'error', step_name: 'boom' });
      expect(body.detail.message).toContain('kaput');
      expect((await events(body.detail.executionId)).at(-1)!.data).toMatchObject({ reason: 'error', code: 'CODE_BLOCK_FAILED', stepIndex: 0, blockName: 'boom' });
    });

    it('caps a 2 MB failure message in the answer and the event, naming its full length', async () => {
      const { status, body } = await post('hugefail', { message: 'x' });
      expect(status).toBe(422);
      expect(body.detail.code).toBe('CODE_BLOCK_FAILED');
      expect(body.detail.message.length).toBeLessThan(4100);
      expect(body.detail.message).toMatch(/… \[truncated: \d{7} characters\]$/);
      const failed = (await events(body.detail.executionId)).at(-1)!;
      // The service's words, and what the code threw (capped) as the sealed detail: together, the answer.
      expect(failed.data).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: expect.stringMatching(/… \[truncated: \d{7} characters\]$/) });
      expect(`${(failed.data as { message: string }).message}: ${(failed.data as { detail: string }).detail}`).toBe(body.detail.message);
    });

    it('fails a loop over something that is not an array, and a loop over too many items', async () => {
      const notArray = await post('loopbad', { message: 'x', parameters: { list: 'abc' } });
      expect(notArray.status).toBe(422);
      expect(notArray.body.detail.code).toBe('LOOP_INPUT_INVALID');
      const tooMany = await post('loopbad', { message: 'x', parameters: { list: [1, 2, 3, 4, 5, 6] } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.detail.code).toBe('LOOP_LIMIT_EXCEEDED');
      expect((await post('loopbad', { message: 'x', parameters: { list: [1, 2, 3, 4, 5] } })).body.result).toEqual({ value: [1, 1, 1, 1, 1] });
    });
  });
});
