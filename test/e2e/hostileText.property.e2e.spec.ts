import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { deliveryIdFor } from '../../src/commands/deliveryCommands.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { UNSTORABLE_TEXT } from '../../src/domain/text/storableText.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type ScriptedModelServer, type ScriptedReply, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { hostileBytes, hostileText } from '../support/hostileText.ts';

const RUNS = { numRuns: 12, endOnFailure: true };

/**
 * Property tests at the entry points: whatever text arrives (a caller's string, a thrown message, a
 * model's reply or refusal, a provider's error, a tool result, a receiver's answer), the request is refused with 400 naming it, or
 * the run or delivery ends with what it stored made storable; and the log verifies.
 */
describe('hostile text at every entry point (property tests)', () => {
  let model: ScriptedModelServer;
  let receiver: HttpsReceiver;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> };
  const answers = new Map<string, Buffer>();

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}/seq/acme/web/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { executionId?: string; detail?: { code: string; message: string; executionId?: string } } };
  };
  const lastEvent = async (executionId: string) => (await t.runtime.eventStore.readStream(`execution-${executionId}`)).at(-1);
  const ended = async (executionId: string) => ['ExecutionCompleted', 'ExecutionFailed'].includes((await lastEvent(executionId))?.type ?? '');

  beforeAll(async () => {
    model = await startScriptedModelServer();
    receiver = await startHttpsReceiver((request, res) => res.writeHead(400).end(answers.get(request.path.slice(1)) ?? Buffer.from('?')));
    t = await createTestRuntime('hostile_text', {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_DEFAULT_CREDITS: '100000000',
    });
    key = await seedProject(t.runtime, {
      thrower: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error(input.message);' } }],
      echo: [{ block: { name: 'echo', processor_type: 'passthrough' } }],
      talk: [{ block: { name: 'talk', processor_type: 'llm', prompt: '{{message}}' } }],
      agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
    });
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await model?.close();
    await receiver?.close();
  });

  it("a caller's string, thrown back by a code block: refused 400 naming it, or the run ends failed with it stored", async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        const answer = await post('thrower/execute', { message: text });
        if (answer.status === 400) {
          expect(answer.body.detail).toMatchObject({ code: 'INVALID_TEXT', message: expect.stringContaining('body.message') });
          return;
        }
        expect(answer.status).toBe(422);
        const executionId = answer.body.detail!.executionId!;
        expect(await ended(executionId)).toBe(true);
        expect(UNSTORABLE_TEXT.test(answer.body.detail!.message)).toBe(false);
      }),
      RUNS,
    );
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it("a model's reply: the run completes with it, or fails MODEL_OUTPUT_INVALID with a storable excerpt", async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        model.script({ content: text });
        const answer = await post('talk/execute', { message: 'say it' });
        const executionId = (answer.body.executionId ?? answer.body.detail?.executionId)!;
        expect(await ended(executionId)).toBe(true);
        if (answer.status === 200) expect(answer.body).toMatchObject({ status: 'completed' });
        else expect(answer.body.detail).toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
      }),
      RUNS,
    );
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it.each([
    // What the model said is personal data (sealed with the step's attempts), never in the unsealed message.
    { what: "a model's refusal", reply: (text: string): ScriptedReply => ({ refusal: text }), code: 'MODEL_OUTPUT_INVALID', says: 'refused to answer', quotes: false },
    { what: "a provider's error", reply: (text: string): ScriptedReply => ({ status: 400, errorBody: { error: { message: text, type: 'invalid_request_error' } } }), code: 'PROVIDER_ERROR', says: 'HTTP 400', quotes: true },
  ])('$what: the run fails $code, its message as the log can store it', async ({ reply, code, says, quotes }) => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        model.script(reply(text));
        const answer = await post('talk/execute', { message: 'say it' });
        expect(answer.body.detail).toMatchObject({ code, message: expect.stringContaining(says) });
        expect(UNSTORABLE_TEXT.test(answer.body.detail!.message)).toBe(false);
        if (!quotes && /^[a-z]{8}/i.test(text)) expect(answer.body.detail!.message).not.toContain(text.slice(0, 8));
        expect(await ended(answer.body.detail!.executionId!)).toBe(true);
      }),
      { ...RUNS, examples: [['Declining to discuss Jane Doe']] },
    );
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it('a tool result: refused 400 naming it (or 413 past 1 MB), or the resumed run ends', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    await fc.assert(
      fc.asyncProperty(hostileText, async (text) => {
        model.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }] }, { content: 'thanks' });
        const pause = await post('agent/execute', { message: 'look it up', tools });
        expect(pause.body).toMatchObject({ status: 'tool_calls_required' });
        const resumed = await post('agent/execute', { executionId: pause.body.executionId, pausedAtStep: 'agent', iterationsUsed: 1, toolCallMessages: [...(pause.body.toolCallMessages as unknown[]), { role: 'tool', tool_call_id: 'call_1', content: text }], tools });
        if (resumed.status === 400 || resumed.status === 413) {
          // Text the log cannot store, or more than the spec's 1 MB of messages (or than a body may hold): refused, naming why.
          if (resumed.status === 400) expect(resumed.body.detail).toMatchObject({ code: 'INVALID_TEXT', message: expect.stringContaining('body.toolCallMessages') });
          else expect(['MESSAGES_TOO_LARGE', 'PAYLOAD_TOO_LARGE']).toContain(resumed.body.detail?.code);
          model.reset();
          return;
        }
        expect(resumed.status).toBe(200);
        expect(await ended(String(pause.body.executionId))).toBe(true);
      }),
      RUNS,
    );
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it("a receiver's answer: the delivery ends after one attempt, its excerpt storable", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostileBytes, async (bytes) => {
        const path = `hook-${n++}`;
        answers.set(path, Buffer.from(bytes));
        const job = await post('echo/jobs', { message: 'm', callbackUrl: `${receiver.url}/${path}` });
        expect(job.status).toBe(202);
        const stream = deliveryStream(deliveryIdFor(job.body.executionId!, 'flow.completed'));
        await until(async () => (await t.runtime.eventStore.readStream(stream)).some((e) => e.type === 'DeliveryAttemptFinished'), 'the delivery to end', 20_000);
        const finished = (await t.runtime.eventStore.readStream(stream)).filter((e) => e.type === 'DeliveryAttemptFinished').map((e) => e.data as { outcome: string; errorExcerpt: string });
        expect(finished).toHaveLength(1);
        expect(finished[0]!.outcome).toBe('failed_permanent');
        expect(UNSTORABLE_TEXT.test(finished[0]!.errorExcerpt)).toBe(false);
      }),
      RUNS,
    );
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });
});
