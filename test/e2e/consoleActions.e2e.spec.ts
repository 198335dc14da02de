import type { TRPCClientError } from '@trpc/client';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { setOperator } from '../../src/commands/operatorCommands.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const AUDIENCE = 'seqflow';

describe('console actions end to end: cancelling a job and redelivering a webhook to a real HTTPS receiver', () => {
  let t: TestRuntime;
  let issuer: JwksIssuer;
  let model: ScriptedModelServer;
  let receiver: HttpsReceiver;
  let api: FastifyInstance;
  let consoleApp: FastifyInstance;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> };
  let olga: ReturnType<typeof createTRPCClient<ConsoleRouter>>;
  /** Paths that answer 404 once per delivery id, then 200: a receiver that was misconfigured, then fixed. */
  const goneOnce = new Set<string>();

  const submit = async (flow: string, body: Record<string, unknown>) => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(202);
    return ((await response.json()) as { executionId: string }).executionId;
  };
  const until = async <T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const deliveryFor = (executionId: string) => until(async () => (await olga.deliveries.list.query({ limit: 200 })).items.find((d) => d.executionId === executionId), 'a delivery');

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    model = await startScriptedModelServer();
    receiver = await startHttpsReceiver((req, res) => {
      const id = String(req.headers['x-service-delivery']);
      if (req.path === '/fixed-later' && !goneOnce.has(id)) {
        goneOnce.add(id);
        return res.writeHead(404).end('no such hook (yet)');
      }
      res.writeHead(200).end('thanks');
    });
    t = await createTestRuntime('console_actions', {
      OAUTH_ISSUER: issuer.issuer,
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_JWKS_URL: issuer.jwksUrl,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_DEFAULT_CREDITS: '1000000',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
    });
    key = await seedProject(t.runtime, {
      slow: [{ block: { name: 'think', processor_type: 'llm', model: 'gpt-4o', prompt: 'Think about {{message}}' } }, { block: { name: 'after', processor_type: 'passthrough' } }],
      quick: [{ block: { name: 'echo', processor_type: 'passthrough' } }],
    });
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app: api, base } = await serveApi(t.runtime));
    await setOperator(t.runtime.commands, { subject: 'olga', operator: true }, testPrincipal);
    consoleApp = await buildConsoleServer(t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    const consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
    const token = await issuer.sign({ sub: 'olga', aud: AUDIENCE });
    olga = createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: `${consoleBase}/internal/trpc`, headers: { authorization: `Bearer ${token}` } })] });
  });
  afterAll(async () => {
    await workers?.stop();
    await consoleApp?.close();
    await api?.close();
    await t?.close();
    await receiver?.close();
    await model?.close();
    await issuer?.close();
  });

  it('cancels a job inside its model call: the job fails with reason cancelled, its flow.failed webhook fires, and the runner records nothing more', async () => {
    let release!: () => void;
    model.script({ content: 'a thought', heldUntil: new Promise<void>((r) => (release = r)) });
    const executionId = await submit('slow', { message: 'life', callbackUrl: `${receiver.url}/hook`, callbackEvents: ['flow.failed'] });
    await until(async () => model.requests.length > 0, 'the job to reach its model call');

    const cancelled = await olga.runs.cancel.mutate({ executionId, reason: 'stuck on a slow provider' });
    expect(cancelled).toEqual({ executionId, status: 'failed', failureReason: 'cancelled', message: 'cancelled by operator olga: stuck on a slow provider' });
    const job = await until(async () => {
      const response = await fetch(`${base}/seq/acme/web/slow/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as { status: string };
      return body.status === 'failed' && body;
    }, 'the job to read failed');
    expect(job).toMatchObject({ status: 'failed', failureReason: 'cancelled', errorCode: 'CANCELLED', errorMessage: 'cancelled by operator olga: stuck on a slow provider' });

    const hooked = await until(async () => receiver.received.find((r) => JSON.parse(r.body).executionId === executionId), 'the flow.failed webhook');
    // The spec's webhook reasons are error, credits_exhausted and byok_rejected: a cancellation is an error whose message says so.
    expect(JSON.parse(hooked.body)).toMatchObject({ event: 'flow.failed', executionId, failureReason: 'error', errorMessage: 'cancelled by operator olga: stuck on a slow provider' });

    // The runner's model call now returns; its next append meets the cancellation and it stops, its lease done.
    release();
    await until(async () => (await t.runtime.db.selectFrom('job_leases').select('done_at').where('execution_id', '=', executionId).executeTakeFirst())?.done_at ?? undefined, 'the runner to let go');
    const types = (await t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e) => e.type);
    expect(types.slice(-1)).toEqual(['ExecutionFailed']);
    expect(types.filter((type) => type === 'ExecutionStepCompleted')).toEqual([]);
    const [failed] = (await t.runtime.eventStore.readStream(`execution-${executionId}`)).filter((e) => e.type === 'ExecutionFailed');
    expect(failed!.metadata.principal).toEqual({ kind: 'user', id: 'olga', via: 'console' });
    expect((await olga.runs.list.query({ status: ['failed'] })).items.find((r) => r.executionId === executionId)).toMatchObject({ status: 'failed', failureCode: 'CANCELLED' });

    const again = await olga.runs.cancel.mutate({ executionId }).then(() => null, (e: unknown) => e as TRPCClientError<ConsoleRouter>);
    expect(again?.data?.code).toBe('CONFLICT');
    const missing = await olga.runs.cancel.mutate({ executionId: 'no-such-run' }).then(() => null, (e: unknown) => e as TRPCClientError<ConsoleRouter>);
    expect(missing?.data?.code).toBe('NOT_FOUND');
  });

  it('redelivers a permanently failed delivery: the receiver gets it again under the same delivery id, and it succeeds', async () => {
    const executionId = await submit('quick', { message: 'hi', callbackUrl: `${receiver.url}/fixed-later` });
    const failed = await until(async () => {
      const d = await deliveryFor(executionId);
      return d.status === 'failed_permanent' && d;
    }, 'the delivery to fail for good');
    expect(failed).toMatchObject({ attempts: 1, responseStatus: 404 });

    expect(await olga.deliveries.redeliver.mutate({ deliveryIds: [failed.deliveryId] })).toEqual({ results: [{ deliveryId: failed.deliveryId, status: 'pending', error: null }] });
    const history = await until(async () => {
      const h = await olga.deliveries.get.query({ deliveryId: failed.deliveryId });
      return h.status === 'succeeded' && h;
    }, 'the redelivery to succeed');
    expect(history.attempts.map((a) => a.responseStatus)).toEqual([404, 200]);
    const sent = receiver.received.filter((r) => JSON.parse(r.body).executionId === executionId);
    expect(sent.map((r) => [r.path, r.headers['x-service-delivery']])).toEqual([
      ['/fixed-later', failed.deliveryId],
      ['/fixed-later', failed.deliveryId],
    ]);
    expect(sent[1]!.body).toBe(sent[0]!.body);

    // The run's row in the Runs listing and the run's own delivery listing both show where it stands.
    await t.runtime.projections.catchUp();
    expect((await olga.deliveries.list.query({ executionId })).items.map((d) => [d.deliveryId, d.status])).toEqual([[failed.deliveryId, 'succeeded']]);
    const row = (await olga.runs.list.query({})).items.find((r) => r.executionId === executionId);
    expect(row).toMatchObject({ flowSlug: 'quick', status: 'completed', deliveries: [{ deliveryId: failed.deliveryId, event: 'flow.completed', status: 'succeeded' }] });
  });
});
