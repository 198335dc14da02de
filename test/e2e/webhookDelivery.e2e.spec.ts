import { randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../lib/index.mjs';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { deliveryIdFor, redeliver } from '../../src/commands/deliveryCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { rotateWebhookSecret, signingSecrets } from '../../src/commands/webhookSecretCommands.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { tablesHolding } from '../support/plaintextScan.ts';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { sealingEventStore } from '../../src/eventstore/sealingEventStore.ts';
import { newDataKey } from '../../src/security/runDataCipher.ts';
import type { RunDataKeys } from '../../src/security/runDataKeys.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flows: Record<string, unknown[]> = {
  ok: [{ block: { name: 'answer', processor_type: 'code', code: 'return { answer: input.message };' } }],
  broken: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("nope");' } }],
  huge: [{ block: { name: 'big', processor_type: 'code', code: 'return { text: "x".repeat(300000) };' } }],
};

describe('webhook deliveries to a real HTTPS receiver', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let receiver: HttpsReceiver;
  let hook: string;
  let base: string;
  let key: string;
  let orgId: string;
  let workers: { stop(): Promise<void> };
  let received: ReceivedRequest[] = [];
  const flaky = new Map<string, number>();

  const submit = async (flow: string, body: Record<string, unknown>) => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await response.json()) as { executionId: string };
  };
  const deliveries = async (query = '') => {
    const response = await fetch(`${base}/organizations/${orgId}/webhooks/deliveries${query}`, { headers: { authorization: `Bearer ${key}` } });
    return (await response.json()) as { items: { id: string; executionId: string; status: string; attempts: number; responseStatus: number | null; errorExcerpt: string | null; event: string }[]; nextCursor: string | null };
  };
  const until = async <T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const deliveryOf = (executionId: string, status: string, ms?: number) =>
    until(async () => (await deliveries('?limit=200')).items.find((d) => d.executionId === executionId && d.status === status), ms);
  const receivedFor = (executionId: string) => received.filter((r) => JSON.parse(r.body).executionId === executionId);

  beforeAll(async () => {
    receiver = await startHttpsReceiver((req, res, raw) => {
      const id = String(req.headers['x-service-delivery']);
      if (req.path === '/ok') return res.writeHead(200).end('thanks');
      if (req.path === '/gone') return res.writeHead(404).end('no such hook');
      // A receiver whose error page echoes the URL it was called at, query and all.
      if (req.path.startsWith('/echo-url?')) return res.writeHead(400).end(`bad request to ${raw.url}`);
      if (req.path === '/moved') return res.writeHead(302, { location: 'https://127.0.0.1:1/elsewhere' }).end();
      if (req.path === '/busy') return res.writeHead(500).end('down for maintenance');
      if (req.path === '/reset') return raw.socket.destroy();
      if (req.path === '/slow-headers') return void setTimeout(() => res.writeHead(200).end(), 1500); // past the attempt timeout
      const fixed = /^\/status\/(\d{3})$/.exec(req.path);
      if (fixed) return res.writeHead(Number(fixed[1]), Number(fixed[1]) === 301 ? { location: '/ok' } : {}).end(`status ${fixed[1]}`);
      // Erases the run it is told of while its first attempt is in flight, then answers 503 quoting the run.
      if (req.path === '/erase-then-503') {
        const { executionId, result } = JSON.parse(req.body) as { executionId: string; result: { answer: string } };
        return void fetch(`${base}/seq/acme/web/ok/runs/${executionId}/data?reason=ticket`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }).then(() => res.writeHead(503).end(`busy with ${result.answer}`));
      }
      if (req.path === '/flaky') {
        const seen = (flaky.get(id) ?? 0) + 1;
        flaky.set(id, seen);
        return seen < 3 ? res.writeHead(503).end('busy') : res.writeHead(204).end();
      }
      res.writeHead(400).end();
    });
    hook = receiver.url;
    received = receiver.received;

    t = await createTestRuntime('deliveries', {
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
      SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '700',
    });
    orgId = (await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    for (const [slug, steps] of Object.entries(flows)) await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    key = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await receiver?.close();
  });

  it('delivers flow.completed, signed, with the spec headers and payload, and records success', async () => {
    const { executionId } = await submit('ok', { message: 'hi', callbackUrl: `${hook}/ok` });
    const done = await deliveryOf(executionId, 'succeeded');
    expect(done).toMatchObject({ event: 'flow.completed', attempts: 1, responseStatus: 200, errorExcerpt: null });
    const [request] = receivedFor(executionId);
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Seqflow-Webhook/1.0', 'x-service-event': 'flow.completed', 'x-service-delivery': done.id });
    const secrets = (await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal))!;
    expect(verifyWebhook(request!.body, request!.headers as Record<string, string>, [secrets.current])).toMatchObject({ ok: true, deliveryId: done.id });
    expect(JSON.parse(request!.body)).toEqual({
      event: 'flow.completed',
      deliveryId: done.id,
      executionId,
      flowId: expect.any(String),
      organizationId: orgId,
      durationMs: expect.any(Number),
      occurredAt: expect.any(String),
      result: { answer: 'hi' },
      truncated: false,
    });
  });

  it('delivers flow.failed only to subscribers of it', async () => {
    const failed = await submit('broken', { message: 'x', callbackUrl: `${hook}/ok`, callbackEvents: ['flow.failed'] });
    await deliveryOf(failed.executionId, 'succeeded');
    expect(JSON.parse(receivedFor(failed.executionId)[0]!.body)).toMatchObject({ event: 'flow.failed', failureReason: 'error', errorMessage: expect.stringContaining('nope') });
    const quiet = await submit('ok', { message: 'x', callbackUrl: `${hook}/ok`, callbackEvents: ['flow.failed'] });
    await until(async () => ((await fetch(`${base}/seq/acme/web/ok/jobs/${quiet.executionId}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as { status: string }).status === 'completed' || undefined);
    // The delivery creator has read past the run's end, and created nothing for it.
    const end = (await t.runtime.eventStore.readStream(`execution-${quiet.executionId}`)).at(-1)!;
    expect(end.type).toBe('ExecutionCompleted');
    await until(async () => Number((await t.runtime.db.selectFrom('reactor_checkpoints').select('position').where('name', '=', 'delivery_creator').executeTakeFirst())?.position ?? 0) >= end.position || undefined);
    expect(await t.runtime.eventStore.streamExists(deliveryStream(deliveryIdFor(quiet.executionId, 'flow.completed')))).toBe(false);
    expect(receivedFor(quiet.executionId)).toEqual([]);
  });

  it('retries 503s under the same delivery id with fresh signatures until the receiver takes it', async () => {
    const { executionId } = await submit('ok', { message: 'retry me', callbackUrl: `${hook}/flaky` });
    const done = await deliveryOf(executionId, 'succeeded');
    expect(done.attempts).toBe(3);
    const attempts = receivedFor(executionId);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['x-service-delivery']))).toEqual(new Set([done.id]));
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  });

  it('ends a delivery whose run was erased before its retry as data_erased, POSTing nothing more, its excerpt erased too (issue 60 point 4)', async () => {
    const marker = `pii-${randomUUID()}`;
    const { executionId } = await submit('ok', { message: marker, callbackUrl: `${hook}/erase-then-503` });
    const ended = await deliveryOf(executionId, 'data_erased');
    expect(ended).toMatchObject({ attempts: 1, responseStatus: 503, errorExcerpt: null });
    // One POST, the one made before the erasure: no retry with an empty body under a valid signature.
    expect(received.filter((r) => r.headers['x-service-delivery'] === ended.id)).toHaveLength(1);
    const events = await t.runtime.eventStore.readStream(deliveryStream(ended.id));
    expect(events.map((e) => e.type)).toEqual(['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryAttemptFinished', 'DeliveryEnded']);
    expect(events.at(-1)).toMatchObject({ data: { deliveryId: ended.id, executionId, reason: 'data_erased' } });
    // The receiver's answer quoted the run: sealed with it, erased with it.
    await t.runtime.projections.catchUp();
    expect(await tablesHolding(t.runtime.db, marker)).toEqual([]);
    await expect(redeliver(t.runtime.commands, ended.id, testPrincipal)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('ends a delivery whose body cannot be opened as data_unreadable, once, instead of failing its task for ever (issue 60 point 6)', async () => {
    const { executionId } = await submit('ok', { message: 'x' });
    await until(async () => ((await fetch(`${base}/seq/acme/web/ok/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as { status: string }).status === 'completed' || undefined);
    // What the red team found: a delivery sealed under a key the log never stored (a writer's stray key).
    const inner = createPostgresEventStore({ pool: t.runtime.pool, connectionString: t.database.url });
    const stray: RunDataKeys = { ...t.runtime.runDataKeys, madeHere: () => newDataKey(), forSealing: () => Promise.resolve(newDataKey()) };
    const deliveryId = randomUUID();
    const created = { type: 'DeliveryCreated' as const, data: { deliveryId, organizationId: orgId, executionId, flowId: 'f', event: 'flow.completed' as const, url: `${hook}/ok`, body: '{"x":1}', truncated: false } };
    await sealingEventStore(inner, stray).append(deliveryStream(deliveryId), [{ id: randomUUID(), ...encodeEvent(created), metadata: { correlationId: executionId, causationId: null, principal: testPrincipal.principal, occurredAt: new Date().toISOString() } }], 'no_stream');
    await inner.close();
    const ended = await until(async () => (await deliveries('?limit=200')).items.find((d) => d.id === deliveryId && d.status === 'data_unreadable'));
    expect(ended).toMatchObject({ attempts: 0 });
    expect(received.filter((r) => r.headers['x-service-delivery'] === deliveryId)).toEqual([]);
    expect((await t.runtime.eventStore.readStream(deliveryStream(deliveryId), { unreadable: 'mark' })).map((e) => e.type)).toEqual(['DeliveryCreated', 'DeliveryEnded']);
  });

  it('never echoes the callback URL\'s query secrets in the error excerpt', async () => {
    const token = 'tok_5ecret_value_9d1f';
    const failed = await deliveryOf((await submit('ok', { message: 'x', callbackUrl: `${hook}/echo-url?token=${token}&team=7` })).executionId, 'failed_permanent');
    expect(failed).toMatchObject({ responseStatus: 400, errorExcerpt: 'bad request to /echo-url?[redacted]' });
    expect(JSON.stringify(failed)).not.toContain(token);
  });

  it('fails for good on 404 and on a redirect (never followed)', async () => {
    const gone = await deliveryOf((await submit('ok', { message: 'x', callbackUrl: `${hook}/gone` })).executionId, 'failed_permanent');
    expect(gone).toMatchObject({ attempts: 1, responseStatus: 404, errorExcerpt: 'no such hook' });
    const moved = await deliveryOf((await submit('ok', { message: 'x', callbackUrl: `${hook}/moved` })).executionId, 'failed_permanent');
    expect(moved).toMatchObject({ attempts: 1, responseStatus: 302 });
    expect(received.filter((r) => r.path === '/elsewhere')).toEqual([]);
  });

  it('dead-letters after the sixth failed attempt (5xx, and connection resets), and redelivers under the same id', async () => {
    const busy = await submit('ok', { message: 'x', callbackUrl: `${hook}/busy` });
    const dead = await deliveryOf(busy.executionId, 'dead_letter');
    expect(dead).toMatchObject({ attempts: 6, responseStatus: 500, errorExcerpt: 'down for maintenance' });
    expect(receivedFor(busy.executionId)).toHaveLength(6);

    await redeliver(t.runtime.commands, dead.id, testPrincipal);
    await until(async () => (receivedFor(busy.executionId).length === 7 ? true : undefined));
    expect(receivedFor(busy.executionId).at(-1)!.headers['x-service-delivery']).toBe(dead.id);
    await deliveryOf(busy.executionId, 'dead_letter');

    const reset = await deliveryOf((await submit('ok', { message: 'x', callbackUrl: `${hook}/reset` })).executionId, 'dead_letter');
    expect(reset).toMatchObject({ attempts: 6, responseStatus: null });
  });

  it.each([
    ['301', '/status/301', 'failed_permanent', 301],
    ['400', '/status/400', 'failed_permanent', 400],
    ['408', '/status/408', 'dead_letter', 408],
    ['429', '/status/429', 'dead_letter', 429],
    ['slow headers (timeout)', '/slow-headers', 'dead_letter', null],
  ])('classifies %s: %s', async (_label, hookPath, status, responseStatus) => {
    const { executionId } = await submit('ok', { message: 'x', callbackUrl: `${hook}${hookPath}` });
    const done = await deliveryOf(executionId, status, 30_000);
    expect(done).toMatchObject({ responseStatus, attempts: status === 'dead_letter' ? 6 : 1 });
  });

  it('retries a refused connection until dead-lettered', async () => {
    const closed = createServer({}, () => undefined);
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const done = await deliveryOf((await submit('ok', { message: 'x', callbackUrl: `https://127.0.0.1:${port}/gone-server` })).executionId, 'dead_letter');
    expect(done).toMatchObject({ attempts: 6, responseStatus: null, errorExcerpt: expect.stringMatching(/ECONNREFUSED|refused/i) });
  });

  it('fails for good when the guard refuses the address at attempt time (the host moved inside the network)', async () => {
    // Accepted as a public URL; by the time of the attempt it resolves to a private address. Here: written directly.
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'ok' }, project.id);
    const executionId = randomUUID();
    await acceptJob(t.runtime.execution, { executionId, ...flow, message: 'x', parameters: {}, attachments: [], tools: undefined, mode: 'async', apiKeyId: null, principal: testPrincipal.principal, callback: { url: 'https://10.0.0.1/hook', events: ['flow.completed'] } });
    const refused = await deliveryOf(executionId, 'failed_permanent');
    expect(refused).toMatchObject({ attempts: 1, responseStatus: null, errorExcerpt: expect.stringContaining('10.0.0.1 is a private address') });
  });

  it('truncates a completed body over 256 KB; the job endpoint keeps the full output', async () => {
    const { executionId } = await submit('huge', { message: 'x', callbackUrl: `${hook}/ok` });
    await deliveryOf(executionId, 'succeeded');
    const request = receivedFor(executionId)[0]!;
    expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(256 * 1024);
    expect(JSON.parse(request.body)).toMatchObject({ truncated: true, result: { truncated: true, fetchFrom: `/api/v1/seq/acme/web/huge/jobs/${executionId}` } });
    const job = (await fetch(`${base}/seq/acme/web/huge/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as { result: { text: string } };
    expect(job.result.text).toHaveLength(300_000);
  });

  it('signs with both secrets during a rotation grace window', async () => {
    const before = (await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal))!.current;
    const { newSecret } = await rotateWebhookSecret(t.runtime.commands, orgId, t.runtime.masterKey, 3600, testPrincipal);
    const { executionId } = await submit('ok', { message: 'x', callbackUrl: `${hook}/ok` });
    await deliveryOf(executionId, 'succeeded');
    const request = receivedFor(executionId)[0]!;
    expect(String(request.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expect(verifyWebhook(request.body, request.headers as Record<string, string>, [newSecret])).toMatchObject({ ok: true });
    expect(verifyWebhook(request.body, request.headers as Record<string, string>, [before])).toMatchObject({ ok: true });
  });

  it('lists deliveries newest first, in pages linked by nextCursor', async () => {
    const all = (await deliveries('?limit=200')).items;
    expect(all.length).toBeGreaterThanOrEqual(8);
    const first = await deliveries('?limit=3');
    expect(first.items.map((d) => d.id)).toEqual(all.slice(0, 3).map((d) => d.id));
    const second = await deliveries(`?limit=3&before=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.items.map((d) => d.id)).toEqual(all.slice(3, 6).map((d) => d.id));
    const bad = await fetch(`${base}/organizations/${orgId}/webhooks/deliveries?limit=500`, { headers: { authorization: `Bearer ${key}` } });
    expect(bad.status).toBe(422);
  });

  it('pages through deliveries created in the same instant one by one, skipping and repeating none', async () => {
    // 23 deliveries whose events share one timestamp (a clock that stands still), long before the others.
    const stillClock = { ...t.runtime.commands, now: () => new Date('2001-01-01T00:00:00.000Z') };
    const tied: string[] = [];
    for (let i = 0; i < 23; i++) {
      const deliveryId = randomUUID();
      tied.push(deliveryId);
      await handleCommand(stillClock, deliveryStream(deliveryId), delivery, {
        type: 'CreateDelivery',
        event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: orgId, executionId: randomUUID(), flowId: randomUUID(), event: 'flow.completed', url: `${hook}/ok`, body: '{}', truncated: false } },
      }, testPrincipal);
    }
    await t.runtime.projections.catchUp();
    const everything = (await deliveries('?limit=200')).items.map((d) => d.id);
    const paged: string[] = [];
    for (let cursor: string | null = '', i = 0; cursor !== null && i < 500; i++) {
      const page = await deliveries(`?limit=1${cursor ? `&before=${encodeURIComponent(cursor)}` : ''}`);
      paged.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor;
    }
    expect(paged).toEqual(everything);
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.filter((id) => tied.includes(id)).sort()).toEqual([...tied].sort());
    // The spec's form of `before` still works: deliveries created strictly before a timestamp.
    expect((await deliveries('?limit=200&before=2001-01-01T00:00:00.001Z')).items.map((d) => d.id).sort()).toEqual([...tied].sort());
  });
});
