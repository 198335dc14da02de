import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { deliveryIdFor } from '../../src/commands/deliveryCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { getWebhookSecret } from '../../src/commands/webhookSecretCommands.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { UNSTORABLE_TEXT } from '../../src/domain/text/storableText.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { UNREADABLE_SECRETS } from '../../src/workers/attemptFailures.ts';
import { createWebhookDispatcher } from '../../src/workers/webhookDispatcher.ts';
import { streamHugeBody } from '../support/hugeBody.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const RETRIES = '50,50,50,50,50';

/**
 * Receivers that answer what the world sends: a NUL in an error page, an emoji across the excerpt's
 * cut, bytes that are not UTF-8, 30 MB, a slow drip, a reset. Each delivery ends (dead-lettered
 * after its six attempts) with exactly one POST per attempt, and what it recorded can be stored and verified.
 */
describe('deliveries to receivers that answer garbage', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let receiver: HttpsReceiver;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> } | undefined;

  const submit = async (callbackUrl: string) => {
    const response = await fetch(`${base}/seq/acme/web/ok/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x', callbackUrl }) });
    expect(response.status).toBe(202);
    return ((await response.json()) as { executionId: string }).executionId;
  };
  const eventsOf = async (executionId: string) => t.runtime.eventStore.readStream(deliveryStream(deliveryIdFor(executionId, 'flow.completed')));
  const posts = (executionId: string) => receiver.received.filter((r) => r.body.includes(executionId)).length;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((req, res, raw) => {
      switch (req.path) {
        case '/nul':
          return res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal\u0000Server Error</h1>');
        case '/emoji-cut':
          // An emoji across the 512th character, the excerpt's bound.
          return res.writeHead(500).end(`${'x'.repeat(511)}😀 and more`);
        case '/not-utf8':
          return res.writeHead(500).end(Buffer.from([0x3c, 0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0x00, 0xed, 0xa0, 0x80]));
        case '/thirty-mb':
          return void streamHugeBody(res, 30 * (1 << 20), undefined, 500);
        case '/drip': {
          // Headers at once, then a byte now and then: the attempt's timeout ends it.
          res.writeHead(500);
          const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('.')), 100);
          return void res.on('close', () => clearInterval(drip));
        }
        case '/reset':
          return raw.socket.destroy();
        case '/busy':
          return res.writeHead(503).end('busy');
        default:
          return res.writeHead(200).end('ok');
      }
    });
    t = await createTestRuntime('hostile_receivers', {
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: RETRIES,
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '700',
    });
    key = await seedProject(t.runtime, { ok: [{ block: { name: 'answer', processor_type: 'code', code: 'return { answer: input.message };' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await receiver?.close();
  });

  it("records nothing for a worker whose master key cannot open the organization's secret, says so in /health, and leaves the delivery to a worker that can", async () => {
    // The organization's secret exists, sealed under the service's key, before the wrong worker runs.
    const organizationId = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()).id;
    await getWebhookSecret(t.runtime.commands, organizationId, t.runtime.masterKey, testPrincipal);
    const dispatcher = (worker: string, masterKey: Buffer) =>
      createWebhookDispatcher({ db: t.runtime.db, logger: t.runtime.logger, commands: t.runtime.commands, guard: t.runtime.execution.guard, masterKey, worker, tracer: t.runtime.tracing.tracer, healthNotes: t.runtime.healthNotes });
    const wrongKey = dispatcher('wrong-key', randomBytes(32));
    const deliveryId = randomUUID();
    const created = { deliveryId, organizationId, executionId: randomUUID(), flowId: randomUUID(), event: 'flow.completed' as const, url: `${receiver.url}/ok`, body: '{"event":"flow.completed"}', truncated: false };
    await handleCommand(t.runtime.commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: created } }, testPrincipal);
    await t.runtime.projections.catchUp();

    const wrong = wrongKey.start();
    const health = async () => (await (await fetch(`${base}/health`)).json()) as { status: string; problems: { code: string; count: number }[] };
    await until(async () => (await health()).problems.some((p) => p.code === UNREADABLE_SECRETS), 'the wrong worker to report the secret it cannot open', 20_000);
    expect(await health()).toMatchObject({ status: 'degraded', problems: [{ code: UNREADABLE_SECRETS, count: 1 }] });
    // More sweeps of the wrong worker: it claims none of that organization's deliveries now.
    for (let i = 0; i < 3; i++) await wrongKey.poke();
    const types = async () => (await t.runtime.eventStore.readStream(deliveryStream(deliveryId))).map((e) => e.type);
    expect(await types()).toEqual(['DeliveryCreated']);

    const rightKey = dispatcher('right-key', t.runtime.masterKey).start();
    await until(async () => (await types()).includes('DeliveryAttemptFinished'), 'a worker with the right key to deliver it', 20_000);
    expect(await types()).toEqual(['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryAttemptFinished']);
    expect(receiver.received.filter((r) => r.headers['x-service-delivery'] === deliveryId)).toHaveLength(1);
    await wrong.stop();
    await rightKey.stop();
  });

  it('gives a receiver that answers garbage one POST per attempt, and ends each delivery in the dead letter', async () => {
    workers ??= await startWorkers(t.runtime);
    const cases = ['/nul', '/emoji-cut', '/not-utf8', '/thirty-mb', '/drip', '/reset'];
    const runs = await Promise.all(cases.map((path) => submit(`${receiver.url}${path}`)));
    await until(
      async () => {
        for (const executionId of runs) {
          const last = (await eventsOf(executionId)).at(-1);
          if (last?.type !== 'DeliveryAttemptFinished' || (last.data as { outcome: string }).outcome !== 'dead_letter') return false;
        }
        return true;
      },
      'every delivery to end in the dead letter',
      60_000,
    );
    for (const [i, executionId] of runs.entries()) {
      const events = await eventsOf(executionId);
      const finished = events.filter((e) => e.type === 'DeliveryAttemptFinished').map((e) => e.data as { attempt: number; errorExcerpt: string | null });
      expect(finished.map((f) => f.attempt), cases[i]).toEqual([1, 2, 3, 4, 5, 6]);
      expect(events.filter((e) => e.type === 'DeliveryAttemptStarted'), cases[i]).toHaveLength(6);
      expect(posts(executionId), cases[i]).toBe(6);
      for (const { errorExcerpt } of finished) {
        expect(errorExcerpt, cases[i]).not.toBeNull();
        expect(UNSTORABLE_TEXT.test(errorExcerpt!), cases[i]).toBe(false);
        expect(errorExcerpt!.length, cases[i]).toBeLessThanOrEqual(1024);
      }
    }
    const [nul, emoji, notUtf8] = await Promise.all(runs.slice(0, 3).map(async (id) => ((await eventsOf(id)).at(-1)!.data as { errorExcerpt: string }).errorExcerpt));
    expect(nul).toBe('<h1>Internal\ufffdServer Error</h1>');
    // Cut before the emoji, never inside it.
    expect(emoji).toBe('x'.repeat(511));
    expect(emoji?.length).toBe(511);
    expect(notUtf8?.startsWith('<\ufffd')).toBe(true);
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
    await workers.stop();
    workers = undefined;
  });

  it("schedules a retry on the database's clock: a worker whose own clock is two hours ahead retries on time", async () => {
    const organizationId = (await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()).id;
    const ahead = 2 * 3600 * 1000;
    const skewed = createWebhookDispatcher({
      db: t.runtime.db,
      logger: t.runtime.logger,
      commands: { ...t.runtime.commands, now: () => new Date(Date.now() + ahead) },
      localClock: () => Date.now() + ahead,
      guard: t.runtime.execution.guard,
      masterKey: t.runtime.masterKey,
      worker: 'clock-ahead',
      tracer: t.runtime.tracing.tracer,
      retryDelaysMs: [1000, 1000, 1000, 1000, 1000],
    });
    const deliveryId = randomUUID();
    const created = { deliveryId, organizationId, executionId: randomUUID(), flowId: randomUUID(), event: 'flow.completed' as const, url: `${receiver.url}/busy`, body: '{}', truncated: false };
    await handleCommand(t.runtime.commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: created } }, testPrincipal);
    await t.runtime.projections.catchUp();
    const running = skewed.start();
    try {
      const finished = async () => (await t.runtime.eventStore.readStream(deliveryStream(deliveryId))).filter((e) => e.type === 'DeliveryAttemptFinished');
      await until(async () => (await finished()).length >= 1, 'the first attempt', 20_000);
      const [first] = await finished();
      const { rows } = await sql<{ at: Date }>`SELECT now() AS at`.execute(t.runtime.db);
      const dueIn = Date.parse((first!.data as { nextAttemptAt: string }).nextAttemptAt) - new Date(rows[0]!.at).getTime();
      // Due about a second after the database's now, not two hours after.
      expect(dueIn).toBeLessThan(60_000);
      // The only dispatcher running is the one whose clock is ahead: the retry is its own.
      await until(async () => (await t.runtime.projections.catchUp(), (await finished()).length >= 2), 'the retry, a second later by the database', 20_000);
    } finally {
      await running.stop();
    }
  });
});
