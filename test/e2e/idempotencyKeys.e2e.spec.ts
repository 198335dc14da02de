import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { idempotencyKeyStream } from '../../src/domain/idempotency/idempotencyKeyEvents.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const flows = {
  ask: [{ block: { name: 'say', processor_type: 'llm', prompt: '{{message}}' } }],
  hello: [{ block: { name: 'a', processor_type: 'passthrough' } }],
  broken: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("broken");' } }],
};

interface Answer {
  status: number;
  replayed: boolean;
  body: { executionId?: string; detail?: { code: string; executionId?: string } } & Record<string, unknown>;
}

describe('Idempotency-Key on POST /execute and POST /jobs (Stripe semantics)', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let otherKey: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('idem', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, flows);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'other', name: 'Other' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'other', file: { slug: 'hello', name: 'hello', steps: flows.hello }, production: true }, testPrincipal);
    otherKey = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'other', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    ({ id: projectId } = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow());
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  const post = async (path: string, body: unknown, idempotencyKey?: string, apiKey = key, project = 'web', requestId?: string): Promise<Answer> => {
    const answer = await fetch(`${base}/seq/acme/${project}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}), ...(requestId ? { 'x-request-id': requestId } : {}) },
      body: JSON.stringify(body),
    });
    return { status: answer.status, replayed: answer.headers.get('idempotent-replayed') === 'true', body: (await answer.json()) as Answer['body'] };
  };
  const keyEvents = async (idempotencyKey: string) =>
    (await t.runtime.eventStore.readStream(idempotencyKeyStream(projectId, createHash('sha256').update(idempotencyKey).digest('hex')))).map((e) => e.type);
  const withoutRequestId = (body: Answer['body']) => ({ ...body, detail: body.detail && { ...body.detail, requestId: undefined } });

  it('makes one job of concurrent retries: each answer is the job or IDEMPOTENCY_KEY_IN_USE', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('hello/jobs', { message: 'once' }, 'job-key-1')));
    for (const answer of answers) expect([202, 409]).toContain(answer.status);
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((a) => a.body.executionId)).size).toBe(1);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.detail?.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect((await keyEvents('job-key-1')).filter((type) => type === 'IdempotencyKeyClaimed')).toHaveLength(1);

    const retried = await post('hello/jobs', { message: 'once' }, 'job-key-1');
    expect(retried).toEqual({ status: 202, replayed: true, body: accepted[0]!.body });
  });

  it('answers IDEMPOTENCY_KEY_IN_USE while the first request runs, then the same answer without running again', async () => {
    let release!: () => void;
    server.respond = () => ({ content: 'forty-two', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const first = post('ask/execute', { message: 'question' }, 'exec-key-1');
    for (let i = 0; i < 400 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.requests).toHaveLength(1); // the first run is inside its model call

    const during = await Promise.all([1, 2, 3].map(() => post('ask/execute', { message: 'question' }, 'exec-key-1')));
    for (const answer of during) expect(answer.status === 409 && answer.body.detail?.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', result: { text: 'forty-two' } });

    const again = await post('ask/execute', { message: 'question' }, 'exec-key-1');
    expect(again).toEqual({ status: 200, replayed: true, body: done.body });
    expect(server.requests).toHaveLength(1);
    expect(await keyEvents('exec-key-1')).toEqual(['IdempotencyKeyClaimed', 'IdempotentResponseRecorded']);
  });

  it('refuses the key for another request (other body, other flow, other route) with IDEMPOTENCY_KEY_REUSED', async () => {
    expect((await post('hello/execute', { message: 'a' }, 'reuse-key')).status).toBe(200);
    for (const [path, body] of [['hello/execute', { message: 'b' }], ['hello/jobs', { message: 'a' }], ['ask/execute', { message: 'a' }]] as const) {
      const answer = await post(path, body, 'reuse-key');
      expect(answer.status).toBe(422);
      expect(answer.body.detail?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
  });

  it('compares bodies by content, not by the order of their keys', async () => {
    const first = await post('hello/execute', { message: 'm', parameters: { a: 1, b: 2 } }, 'order-key');
    const second = await post('hello/execute', { parameters: { b: 2, a: 1 }, message: 'm' }, 'order-key');
    expect(second).toEqual({ ...first, replayed: true });
  });

  it('keeps the answer of a run that failed: the retry gets the same failure and the same run', async () => {
    const failed = await post('broken/execute', { message: 'x' }, 'fail-key');
    expect(failed.status).toBe(422);
    expect(failed.body.detail).toMatchObject({ code: 'CODE_BLOCK_FAILED', executionId: expect.any(String) });
    const again = await post('broken/execute', { message: 'x' }, 'fail-key');
    expect(again.status).toBe(422);
    expect(again.replayed).toBe(true);
    expect(withoutRequestId(again.body)).toEqual(withoutRequestId(failed.body));
  });

  it('frees the key when the request is refused before any run began, so the corrected retry runs', async () => {
    const refused = await post('hello/execute', { parameters: {} }, 'refused-key');
    expect(refused.status).toBe(422);
    expect(refused.body.detail?.code).toBe('REQUEST_INVALID');
    const corrected = await post('hello/execute', { message: 'now with a message' }, 'refused-key');
    expect(corrected.status).toBe(200);
    expect(corrected.replayed).toBe(false);
    expect(await keyEvents('refused-key')).toEqual(['IdempotencyKeyClaimed', 'IdempotencyKeyReleased', 'IdempotencyKeyClaimed', 'IdempotentResponseRecorded']);
  });

  it("scopes keys to the API key's project", async () => {
    const mine = await post('hello/execute', { message: 'x' }, 'shared-key');
    const theirs = await post('hello/execute', { message: 'x' }, 'shared-key', otherKey, 'other');
    expect(theirs.status).toBe(200);
    expect(theirs.replayed).toBe(false);
    expect(theirs.body.executionId).not.toBe(mine.body.executionId);
  });

  it('refuses a key that is not 1-255 visible ASCII characters, running nothing', async () => {
    for (const bad of ['x'.repeat(256), 'has space']) {
      const answer = await post('hello/execute', { message: 'x' }, bad);
      expect(answer.status).toBe(400);
      expect(answer.body.detail?.code).toBe('IDEMPOTENCY_KEY_INVALID');
    }
  });

  it('records the claim with the request id of the request that made it', async () => {
    await fetch(`${base}/seq/acme/web/hello/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'traced-key', 'x-request-id': 'idem-req-1' },
      body: JSON.stringify({ message: 'x' }),
    });
    const events = await t.runtime.eventStore.readStream(idempotencyKeyStream(projectId, createHash('sha256').update('traced-key').digest('hex')));
    expect(events.map((e) => [e.type, e.metadata.requestId])).toEqual([
      ['IdempotencyKeyClaimed', 'idem-req-1'],
      ['IdempotentResponseRecorded', 'idem-req-1'],
    ]);
  });

  it('keeps the answer of a run that failed inside after it started (a log failure): a retry answers it again and runs nothing', async () => {
    // Injected in PostgreSQL itself: the run's ending cannot be appended, as when the log goes away mid-run.
    await sql`CREATE FUNCTION fail_poisoned_ending() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'append failed (injected)'; END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER fail_poisoned_ending BEFORE INSERT ON seqflow_events FOR EACH ROW WHEN (NEW.event_type = 'ExecutionCompleted' AND NEW.metadata->>'requestId' LIKE 'poison-marker%') EXECUTE FUNCTION fail_poisoned_ending()`.execute(t.runtime.db);
    // Started: the model answers once the run's request is in the log (its ending fails to append).
    // The run is known by its request id: what it holds is sealed in the log.
    const requestedRuns = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM seqflow_events WHERE event_type = 'ExecutionRequested' AND metadata->>'requestId' LIKE 'poison-marker%'`.execute(t.runtime.db)).rows[0]!.n;
    server.respond = () => ({ content: 'poison-marker answer', heldUntil: until(async () => (await requestedRuns()) === 1, 'the run request in the log') });
    try {
      const first = await post('ask/execute', { message: 'poison-marker' }, 'started-run-key', key, 'web', 'poison-marker-1');
      expect(first.status).toBe(500);
      // Its end could not be written: the run is recorded failed in its place (RUN_RECORD_FAILED), and named.
      expect(first.body.detail).toMatchObject({ code: 'RUN_RECORD_FAILED', executionId: expect.any(String) });
      const retried = await post('ask/execute', { message: 'poison-marker' }, 'started-run-key', key, 'web', 'poison-marker-2');
      expect({ ...retried, body: withoutRequestId(retried.body) }).toEqual({ status: 500, replayed: true, body: withoutRequestId(first.body) });
      expect(await keyEvents('started-run-key')).toEqual(['IdempotencyKeyClaimed', 'IdempotentResponseRecorded']);
      expect(await requestedRuns()).toBe(1);
      expect(server.requests).toHaveLength(1);
    } finally {
      await sql`DROP TRIGGER fail_poisoned_ending ON seqflow_events`.execute(t.runtime.db);
    }
  });

  it('answers a run whose first append failed with everything in it as not started: nothing recorded, no run named, a retry runs it', async () => {
    // A passthrough run is one append (its request, its step and its end): that append fails whole.
    await sql`CREATE FUNCTION fail_whole_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'append failed (injected)'; END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER fail_whole_run BEFORE INSERT ON seqflow_events FOR EACH ROW WHEN (NEW.event_type = 'ExecutionCompleted' AND NEW.metadata->>'requestId' LIKE 'whole-run-marker%') EXECUTE FUNCTION fail_whole_run()`.execute(t.runtime.db);
    const requested = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM seqflow_events WHERE event_type = 'ExecutionRequested' AND metadata->>'requestId' LIKE 'whole-run-marker%'`.execute(t.runtime.db)).rows[0]!.n;
    try {
      const first = await post('hello/execute', { message: 'whole-run-marker' }, 'unstarted-run-key', key, 'web', 'whole-run-marker-1');
      expect(first.status).toBe(500);
      expect(first.body.detail).toMatchObject({ code: 'INTERNAL' });
      expect(first.body.detail).not.toHaveProperty('executionId');
      expect(await requested()).toBe(0);
    } finally {
      await sql`DROP TRIGGER fail_whole_run ON seqflow_events`.execute(t.runtime.db);
    }
    const retried = await post('hello/execute', { message: 'whole-run-marker' }, 'unstarted-run-key', key, 'web', 'whole-run-marker-2');
    expect(retried).toMatchObject({ status: 200, replayed: false, body: { status: 'completed' } });
    expect(await requested()).toBe(1);
  });
});
