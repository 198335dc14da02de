import { TRPCClientError, createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { issueConsoleLink } from '../../src/commands/consoleLinkCommands.ts';
import { randomUUID } from 'node:crypto';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { publishVersion } from '../../src/commands/flowCommands.ts';
import { setPromotionGate } from '../../src/authoring/flowAuthoring.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { addTestCase } from '../../src/testing/testCases.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { grantCredits } from '../../src/commands/organizationCommands.ts';
import { endConsoleLinkSessions, setOperator } from '../../src/commands/operatorCommands.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { typesApart } from '../support/runEventsApart.ts';

const AUDIENCE = 'seqflow';

describe('the operator console router (tRPC at /internal/trpc on its own listener)', () => {
  let t: TestRuntime;
  let issuer: JwksIssuer;
  let api: FastifyInstance;
  let consoleApp: FastifyInstance;
  let consoleBase: string;
  let executionId: string;
  let flowId: string;
  let projectId: string;
  let organizationId: string;
  let apiBase: string;
  let apiKey: string;

  const client = (headers: Record<string, string> = {}) => createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: `${consoleBase}/internal/trpc`, headers })] });
  const asOperator = async (sub = 'olga') => client({ authorization: `Bearer ${await issuer.sign({ sub, aud: AUDIENCE })}` });
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    return error as TRPCClientError<ConsoleRouter>;
  };

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    t = await createTestRuntime('console', { OAUTH_ISSUER: issuer.issuer, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: issuer.jwksUrl, SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    const key = await seedProject(t.runtime, { hello: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    apiKey = key;
    await t.runtime.projections.catchUp();
    let base: string;
    ({ app: api, base } = await serveApi(t.runtime));
    apiBase = base;
    const run = await fetch(`${base}/seq/acme/web/hello/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi' }) });
    executionId = ((await run.json()) as { executionId: string }).executionId;
    await t.runtime.projections.catchUp();
    const flow = await t.runtime.db.selectFrom('flows').select(['id', 'project_id', 'organization_id']).where('slug', '=', 'hello').executeTakeFirstOrThrow();
    ({ id: flowId, project_id: projectId, organization_id: organizationId } = flow);
    await setOperator(t.runtime.commands, { subject: 'olga', operator: true }, testPrincipal);
    consoleApp = await buildConsoleServer(t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await consoleApp?.close();
    await api?.close();
    await t?.close();
    await issuer?.close();
  });

  it('refuses callers who are not operators: no credentials, a member\'s token, a revoked operator', async () => {
    expect((await refusal(client().system.status.query())).data?.code).toBe('UNAUTHORIZED');
    expect((await refusal((await asOperator('mallory')).system.status.query())).data?.code).toBe('UNAUTHORIZED');
    await setOperator(t.runtime.commands, { subject: 'victor', operator: true }, testPrincipal);
    const victor = await asOperator('victor');
    expect((await victor.system.status.query()).projections.length).toBeGreaterThan(0);
    await setOperator(t.runtime.commands, { subject: 'victor', operator: false }, testPrincipal);
    expect((await refusal(victor.system.status.query())).data?.code).toBe('UNAUTHORIZED');
  });

  /** What a browser does with a link: open its page, then press its button (a form POST of the token). */
  const signInWith = async (token: string) => {
    const page = await fetch(`${consoleBase}/login?token=${token}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/login">');
    const posted = /name="token" value="([^"]+)"/.exec(html)![1]!;
    return fetch(`${consoleBase}/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: consoleBase }, body: new URLSearchParams({ token: posted }).toString() });
  };

  it('refuses text the log cannot store in any input with 400 INVALID_TEXT naming it, never a database error', async () => {
    const olga = await asOperator();
    const before = await t.runtime.eventStore.headPosition();
    for (const call of [() => olga.runs.search.query({ text: 'a\u0000b' }), () => olga.runs.cancel.mutate({ executionId, reason: 'stop\u0000now' }), () => olga.flows.list.query({ projectId: '\ud800' })]) {
      const error = await refusal(call());
      expect(error.data?.code).toBe('BAD_REQUEST');
      expect((error.data as { detail: { code: string; message: string } }).detail).toMatchObject({ code: 'INVALID_TEXT', message: expect.stringMatching(/^input\.\w+ contains/) });
      expect(error.message).not.toMatch(/invalid byte sequence|unsupported Unicode escape/);
    }
    expect(await t.runtime.eventStore.headPosition()).toBe(before);
  });

  it("answers the service's own fault without its text (no query, no table, no stack), which the log keeps under an error id", async () => {
    const olga = await asOperator();
    // A real database fault: the table the procedure reads is gone for a moment.
    await sql`ALTER TABLE flows RENAME TO flows_away`.execute(t.runtime.db);
    let error;
    try {
      error = await refusal(olga.flows.list.query({ projectId }));
    } finally {
      await sql`ALTER TABLE flows_away RENAME TO flows`.execute(t.runtime.db);
    }
    expect(error.data?.code).toBe('INTERNAL_SERVER_ERROR');
    const errorId = /internal error \(error id ([0-9a-f-]{36})/.exec(error.message)?.[1];
    expect(errorId).toBeDefined();
    expect(JSON.stringify({ message: error.message, data: error.data })).not.toMatch(/relation|does not exist|select|stack/i);
    expect(t.logs()).toContain(errorId);
  });

  it('never writes a one-time link\'s token to the log', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'logged' }, testPrincipal);
    expect((await signInWith(token)).status).toBe(303);
    expect((await signInWith(token)).status).toBe(401);
    expect(t.logs()).toContain('/login?token=[redacted]');
    expect(t.logs()).not.toContain(token);
  });

  it('uses a link only when its page\'s button is pressed: a link preview (GET) leaves it usable', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'previewed' }, testPrincipal);
    for (let i = 0; i < 3; i++) expect((await fetch(`${consoleBase}/login?token=${token}`)).status).toBe(200);
    const login = await signInWith(token);
    expect([login.status, login.headers.get('location')]).toEqual([303, '/#/runs']);
  });

  it('refuses a sign-in posted from another site\'s page', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'csrf' }, testPrincipal);
    const forged = await fetch(`${consoleBase}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: new URLSearchParams({ token }).toString() });
    expect(forged.status).toBe(403);
    expect((await signInWith(token)).status).toBe(303);
  });

  it('opens a session with a one-time link (a cookie), refusing the link the second time', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'oncall' }, testPrincipal);
    const login = await fetch(`${consoleBase}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ signedIn: 'oncall' });
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^seqflow_console=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    expect((await signInWith(token)).status).toBe(401);
    expect((await fetch(`${consoleBase}/login`)).status).toBe(422);
    const session = client({ cookie: cookie.split(';')[0]! });
    expect(await session.system.status.query()).toMatchObject({ tasks: expect.any(Array), jobs: expect.any(Object), deliveries: expect.any(Object), leases: { jobs: [], deliveries: [] } });
    expect((await refusal(client({ cookie: 'seqflow_console=forged' }).system.status.query())).data?.code).toBe('UNAUTHORIZED');
  });

  it("refuses a mutation from another site's page with the operator's cookie (403), and takes the console page's own (issue 60 point 6)", async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'approver' }, testPrincipal);
    const cookie = (await signInWith(token)).headers.get('set-cookie')!.split(';')[0]!;
    const mutate = (headers: Record<string, string>) =>
      fetch(`${consoleBase}/internal/trpc/audit.verifyLog`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify({}) });
    for (const foreign of [{ origin: 'http://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const refused = await mutate(foreign);
      expect(refused.status, JSON.stringify(foreign)).toBe(403);
      expect(await refused.json()).toMatchObject({ detail: { code: 'FORBIDDEN', message: expect.stringContaining('its own page') } });
    }
    expect((await mutate({ origin: consoleBase })).status).toBe(200);
    // A query reads nothing it could change: no Origin needed (a link opened from elsewhere still shows its page).
    expect((await fetch(`${consoleBase}/internal/trpc/system.status`, { headers: { cookie, origin: 'http://evil.example' } })).status).toBe(200);
  });

  it('ends every link session at once on `console revoke`; a link opened after it works', async () => {
    const before = client({ cookie: (await signInWith((await issueConsoleLink(t.runtime.commands, { operator: 'laptop' }, testPrincipal)).token)).headers.get('set-cookie')!.split(';')[0]! });
    expect((await before.system.status.query()).tasks).toEqual(expect.any(Array));
    await endConsoleLinkSessions(t.runtime.commands, testPrincipal);
    expect((await refusal(before.system.status.query())).data?.code).toBe('UNAUTHORIZED');
    const after = client({ cookie: (await signInWith((await issueConsoleLink(t.runtime.commands, { operator: 'laptop' }, testPrincipal)).token)).headers.get('set-cookie')!.split(';')[0]! });
    expect((await after.system.status.query()).tasks).toEqual(expect.any(Array));
  });

  it('reads a run from the log and answers NOT_FOUND with the service\'s code for an unknown one', async () => {
    const olga = await asOperator();
    expect(await olga.runs.get.query({ executionId })).toMatchObject({ executionId, status: 'completed', input: { message: 'hi', parameters: {}, attachments: [] }, flow: { slug: 'hello', name: expect.any(String) }, result: { text: 'hi' }, steps: [expect.objectContaining({ name: 'echo', status: 'completed' })] });
    const stepId = ((await olga.runs.get.query({ executionId })).steps[0] as { stepId: string }).stepId;
    expect(await olga.runs.stepTrace.query({ executionId, stepId })).toMatchObject({ name: 'echo', executions: [expect.objectContaining({ output: 'hi' })] });
    const missing = await refusal(olga.runs.get.query({ executionId: 'no-such-run' }));
    expect(missing.data?.code).toBe('NOT_FOUND');
    expect((missing.shape?.data as { detail: { code: string } }).detail.code).toBe('EXECUTION_NOT_FOUND');
    expect((await refusal(olga.flows.versions.query({ flowId: 'no-such-flow' }))).data?.code).toBe('NOT_FOUND');
    expect(await olga.organizations.list.query()).toEqual([{ organizationId, slug: 'acme', name: expect.any(String), projects: [{ projectId, slug: 'web', name: expect.any(String) }] }]);
    expect((await refusal(olga.runs.get.query({ executionId: '' }))).data?.code).toBe('BAD_REQUEST');
  });

  it('reruns a run as the operator, reads flows, versions, diffs and secrets, exports a run and verifies the read models', async () => {
    const olga = await asOperator();
    const rerun = await olga.runs.rerun.mutate({ executionId });
    expect(rerun).toMatchObject({ status: 'completed', rerunOf: executionId, version: { number: 1 } });
    const [requested] = await t.runtime.eventStore.readStream(`execution-${rerun.executionId}`);
    expect(requested!.metadata.principal).toEqual({ kind: 'user', id: 'olga', via: 'console' });

    expect(await olga.flows.list.query({ projectId })).toEqual([expect.objectContaining({ flowId, slug: 'hello', productionVersion: 1 })]);
    expect(await olga.flows.versions.query({ flowId })).toEqual([expect.objectContaining({ number: 1, production: true })]);
    expect(await olga.flows.diff.query({ flowId, from: 1, to: 'draft' })).toMatchObject({ added: [], removed: [], changed: [] });
    expect(await olga.secrets.status.query({ organizationId })).toMatchObject({ version: 1, secretPreview: expect.stringMatching(/^whsec_/) });

    const exported = await olga.audit.exportRun.query({ executionId });
    expect(verifyExport(`${exported.lines.join('\n')}\n`)).toMatchObject({ ok: true });
    expect(await olga.audit.verifyLog.mutate({})).toMatchObject({ problem: null });
    await t.runtime.projections.catchUp();
    expect(await olga.projections.verify.mutate()).toMatchObject({ ok: true });
  });

  it('lists deliveries dead letters first, shows every attempt, and redelivers the ones named, each answering for itself', async () => {
    const deps = t.runtime.commands;
    const make = async (failures: number, finalStatus: number) => {
      const deliveryId = randomUUID();
      const stream = deliveryStream(deliveryId);
      await handleCommand(deps, stream, delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId, executionId, flowId, event: 'flow.completed', url: 'https://hooks.example/in', body: '{}', truncated: false } } }, testPrincipal);
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      for (let attempt = 1; attempt <= failures + 1; attempt++) {
        await handleCommand(deps, stream, delivery, { type: 'StartAttempt', data: { now: new Date(now).toISOString() } }, testPrincipal);
        const status = attempt <= failures ? 503 : finalStatus;
        const done = await handleCommand(deps, stream, delivery, { type: 'FinishAttempt', data: { attempt, start: 1, result: { kind: 'response', status }, errorExcerpt: status >= 300 ? 'busy' : null, endedAt: new Date(now + 50).toISOString(), durationMs: 50, secretVersions: [1] } }, testPrincipal);
        now = Date.parse((done.state as { nextAttemptAt: string | null }).nextAttemptAt ?? new Date(now).toISOString());
      }
      return deliveryId;
    };
    const succeeded = await make(1, 200);
    const dead = await make(5, 503);
    await t.runtime.projections.catchUp();
    const olga = await asOperator();
    const listed = await olga.deliveries.list.query({ organizationId });
    expect(listed.items.map((d) => [d.deliveryId, d.status])).toEqual([[dead, 'dead_letter'], [succeeded, 'succeeded']]);
    const firstPage = await olga.deliveries.list.query({ limit: 1 });
    expect(firstPage.items[0]!.deliveryId).toBe(dead);
    expect((await olga.deliveries.list.query({ limit: 1, cursor: firstPage.nextCursor! })).items[0]!.deliveryId).toBe(succeeded);
    expect((await olga.deliveries.list.query({ status: ['succeeded'] })).items.map((d) => d.deliveryId)).toEqual([succeeded]);
    const history = await olga.deliveries.get.query({ deliveryId: dead });
    expect(history.attempts.map((a) => [a.attempt, a.outcome, a.responseStatus])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, n === 6 ? 'dead_letter' : 'failed_retry', 503]));

    const { results } = await olga.deliveries.redeliver.mutate({ deliveryIds: [dead, succeeded, 'no-such-delivery'] });
    expect(results).toEqual([
      { deliveryId: dead, status: 'pending', error: null },
      { deliveryId: succeeded, status: null, error: { code: 'CONFLICT', message: expect.stringContaining('only dead-lettered or permanently failed') } },
      { deliveryId: 'no-such-delivery', status: null, error: { code: 'NOT_FOUND', message: expect.any(String) } },
    ]);
    expect((await olga.deliveries.get.query({ deliveryId: dead })).redeliveries).toEqual([{ requestedAt: expect.any(String), by: { kind: 'user', id: 'olga', via: 'console' } }]);
    expect((await refusal(olga.deliveries.get.query({ deliveryId: 'no-such-delivery' }))).data?.code).toBe('NOT_FOUND');
    expect((await refusal(olga.deliveries.list.query({ cursor: 'forged' }))).data?.code).toBe('UNPROCESSABLE_CONTENT');
  });

  it('promotes a version through the test gate, shows test results, and rotates a secret', async () => {
    const olga = await asOperator();
    const v2 = await publishVersion(t.runtime.commands, { flowId, note: 'again' }, testPrincipal);
    await setPromotionGate(t.runtime.commands, {}, { flowId, enabled: true }, testPrincipal);
    const testCase = await addTestCase(t.runtime.commands, {}, { flowId, definition: { name: 'echoes', input: { message: 'x' }, assertions: [{ type: 'path_equals', path: 'text', value: 'x' }] } }, testPrincipal);
    await t.runtime.projections.catchUp();
    const gated = await refusal(olga.flows.promote.mutate({ flowId, versionId: v2.versionId }));
    expect((gated.shape?.data as { detail: { code: string } }).detail.code).toBe('TESTS_NOT_RUN');
    await runTestCase(t.runtime.execution, {}, { testCaseId: testCase.testCaseId, version: 2 }, testPrincipal);
    await t.runtime.projections.catchUp();
    expect(await olga.tests.results.query({ flowId, versionId: v2.versionId })).toEqual([{ testCaseId: testCase.testCaseId, name: 'echoes', latest: expect.objectContaining({ passed: true, versionId: v2.versionId }) }]);
    expect(await olga.flows.promote.mutate({ flowId, versionId: v2.versionId })).toMatchObject({ flowId, versionId: v2.versionId, number: 2 });
    expect((await refusal(olga.flows.promote.mutate({ flowId, versionId: 'no-such-version' }))).data?.code).toBe('NOT_FOUND');
    expect((await refusal(olga.tests.results.query({ flowId: 'no-such-flow' }))).data?.code).toBe('NOT_FOUND');

    const rotated = await olga.secrets.rotate.mutate({ organizationId });
    expect(rotated).toMatchObject({ version: 2, newSecret: expect.stringMatching(/^whsec_/) });
    expect((await refusal(olga.secrets.rotate.mutate({ organizationId: 'no-such-org' }))).data?.code).toBe('NOT_FOUND');
  });

  it('counts runs and failed runs per flow by UTC hour, test runs left out, and refuses a window too long for its bucket', async () => {
    await t.runtime.projections.catchUp();
    const olga = await asOperator();
    const to = new Date(Date.now() + 3_600_000);
    const from = new Date(to.getTime() - 24 * 3_600_000);
    const activity = await olga.runs.activity.query({ organizationId, from: from.toISOString(), to: to.toISOString(), bucket: 'hour' });
    const notTests = (await olga.runs.list.query({ organizationId, kind: 'production', limit: 200 })).items;
    expect(activity.points).toHaveLength(25);
    expect(activity.points.every((point) => point.at.endsWith(':00:00.000Z'))).toBe(true);
    const counted = (field: 'runs' | 'failed') => activity.points.reduce((sum, point) => sum + Object.values(point[field]).reduce((a, b) => a + b, 0), 0);
    expect(counted('runs')).toBe(notTests.length);
    expect(counted('failed')).toBe(notTests.filter((r) => r.status === 'failed').length);
    expect(activity.flows.map((f) => f.label)).toContain('hello');

    const tooLong = await refusal(olga.runs.activity.query({ from: new Date(to.getTime() - 30 * 86_400_000).toISOString(), to: to.toISOString(), bucket: 'hour' }));
    expect((tooLong.shape?.data as { detail: { code: string; message: string } }).detail).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('at most 200') });
  });

  it('lists runs newest first with the filters an operator needs: organization, status, kind (production, test, backtest), API key, time, and a cursor', async () => {
    await t.runtime.projections.catchUp();
    const olga = await asOperator();
    const all = await olga.runs.list.query({ organizationId });
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    const original = all.items.find((r) => r.executionId === executionId)!;
    expect(original).toMatchObject({ mode: 'sync', status: 'completed', versionNumber: 1, apiKeyId: expect.any(String), testRunId: null, rerunOf: null, durationMs: expect.any(Number) });
    expect(all.items.some((r) => r.rerunOf === executionId)).toBe(true);
    const createdAts = all.items.map((r) => r.createdAt);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);

    expect((await olga.runs.list.query({ apiKeyId: original.apiKeyId! })).items.map((r) => r.executionId)).toEqual([executionId]);
    const tests = await olga.runs.list.query({ kind: 'test' });
    expect(tests.items.length).toBeGreaterThan(0);
    expect(tests.items.every((r) => r.mode === 'test')).toBe(true);
    const production = (await olga.runs.list.query({ kind: 'production' })).items;
    expect(production.length).toBeGreaterThan(0);
    expect(production.every((r) => ['sync', 'async', 'step'].includes(r.mode))).toBe(true);
    expect((await olga.runs.list.query({ status: ['failed', 'paused', 'retrying'] })).items).toEqual([]);

    // What a bare "running" would hide: a run waiting for tool results, and a job taken over.
    const requested = (await t.runtime.eventStore.readStream(`execution-${executionId}`))[0]!.data as Record<string, unknown>;
    const record = (id: string, event: Record<string, unknown>) => handleCommand(t.runtime.commands, `execution-${id}`, execution, { type: 'Record', event: event as never }, testPrincipal);
    const [waiting, takenOver] = [randomUUID(), randomUUID()];
    await record(waiting, { type: 'ExecutionRequested', data: { ...requested, executionId: waiting } });
    await record(waiting, { type: 'ExecutionPausedForToolCalls', data: { executionId: waiting, stepIndex: 0, blockId: 'b', blockName: 'echo', iterationsUsed: 1, toolCalls: [], messagesDigest: 'd', messageCount: 1 } });
    await record(takenOver, { type: 'ExecutionRequested', data: { ...requested, executionId: takenOver, mode: 'async', apiKeyId: null } });
    for (const claim of [1, 2]) await record(takenOver, { type: 'JobClaimed', data: { executionId: takenOver, worker: `w${claim}`, claim } });
    await t.runtime.projections.catchUp();
    const hidden = await olga.runs.list.query({ status: ['paused', 'retrying'] });
    expect(hidden.items.map((r) => [r.executionId, r.status, r.claims]).sort()).toEqual([[waiting, 'paused', 0], [takenOver, 'retrying', 2]].sort());
    expect((await olga.runs.list.query({ from: '2999-01-01T00:00:00Z' })).items).toEqual([]);

    const everything = await olga.runs.list.query({ organizationId });
    const first = await olga.runs.list.query({ organizationId, limit: 1 });
    const second = await olga.runs.list.query({ organizationId, limit: 1, cursor: first.nextCursor! });
    expect([first.items[0]!.executionId, second.items[0]!.executionId]).toEqual([everything.items[0]!.executionId, everything.items[1]!.executionId]);
    expect((await refusal(olga.runs.list.query({ from: 'yesterday' }))).data?.code).toBe('BAD_REQUEST');
  });

  it("reads and sets an organization's retention periods, its project's in their place, each recorded with the operator", async () => {
    const olga = await asOperator();
    expect(await olga.retention.get.query({ organizationId })).toMatchObject({ runDays: null, projects: [{ projectId, runDays: null, appliedRunDays: null }] });
    expect(await olga.retention.set.mutate({ organizationId, projectId: null, runDays: 30 })).toMatchObject({ runDays: 30, changed: true });
    expect(await olga.retention.set.mutate({ organizationId, projectId, runDays: 7 })).toMatchObject({ projectId, runDays: 7, changed: true });
    const set = (await t.runtime.eventStore.readStream(`retention-${organizationId}`)).map((e) => ({ data: e.data, principal: e.metadata.principal }));
    expect(set).toEqual([
      { data: { organizationId, projectId: null, runDays: 30 }, principal: { kind: 'user', id: 'olga', via: 'console' } },
      { data: { organizationId, projectId, runDays: 7 }, principal: { kind: 'user', id: 'olga', via: 'console' } },
    ]);
    await t.runtime.projections.catchUp();
    expect(await olga.retention.get.query({ organizationId })).toMatchObject({ runDays: 30, projects: [{ projectId, runDays: 7, appliedRunDays: 7 }] });
    // A project of no such organization, and a period out of bounds, are refused before anything is recorded.
    const stranger = await refusal(olga.retention.set.mutate({ organizationId: '00000000-0000-4000-8000-000000000000', projectId, runDays: 1 }));
    expect((stranger.shape?.data as { detail: { code: string } }).detail.code).toBe('ORGANIZATION_NOT_FOUND');
    expect((await refusal(olga.retention.set.mutate({ organizationId, projectId, runDays: 0 }))).data?.code).toBe('BAD_REQUEST');
    expect(await t.runtime.eventStore.readStream(`retention-${organizationId}`)).toHaveLength(2);
    await olga.retention.set.mutate({ organizationId, projectId: null, runDays: null });
    await olga.retention.set.mutate({ organizationId, projectId, runDays: null });
  });

  it('streams log events live (SSE), filtered by run or organization, and resumes after the last event id', async () => {
    const token = await issuer.sign({ sub: 'olga', aud: AUDIENCE });
    const live = createTRPCClient<ConsoleRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: `${consoleBase}/internal/trpc`, EventSource, eventSourceOptions: { fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }) } }),
          false: httpLink({ url: `${consoleBase}/internal/trpc`, headers: { authorization: `Bearer ${token}` } }),
        }),
      ],
    });
    type Live = { id: string; data: { position: number; streamId: string; type: string; data: unknown; principal: unknown } };
    const collect = (input: Parameters<typeof live.events.live.subscribe>[0], until: (events: Live[]) => boolean) =>
      new Promise<Live[]>((resolve, reject) => {
        const seen: Live[] = [];
        const sub = live.events.live.subscribe(input, {
          onData: (event) => {
            seen.push(event as Live);
            if (until(seen)) {
              sub.unsubscribe();
              resolve(seen);
            }
          },
          onError: (error) => reject(error),
        });
      });
    const from = await t.runtime.eventStore.headPosition();
    const ids: string[] = [];
    for (const message of ['one', 'two']) {
      const run = await fetch(`${apiBase}/seq/acme/web/hello/execute`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      ids.push(((await run.json()) as { executionId: string }).executionId);
    }
    const ended = (events: Live[]) => events.some((e) => e.data.type === 'ExecutionCompleted');
    const second = await collect({ from, executionId: ids[1]! }, ended);
    // The log as it is, where the passthrough block's start may be told by its completion (runEventsApart.ts).
    expect(typesApart(second.map((e) => ({ event_type: e.data.type, data: e.data.data as { started?: unknown } })))).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'ExecutionCompleted']);
    expect(second.every((e) => e.data.streamId === `execution-${ids[1]}` && e.id === String(e.data.position))).toBe(true);
    expect(second[0]!.data.data).toMatchObject({ executionId: ids[1], mode: 'sync', message: 'two' });

    // Resuming after the first event gives exactly the rest, in log order.
    const resumed = await collect({ from, lastEventId: second[0]!.id, executionId: ids[1]! }, ended);
    expect(resumed.map((e) => e.id)).toEqual(second.slice(1).map((e) => e.id));

    // By organization: both runs, in log order; a live reader also gets what is appended after it opened.
    const both = collect({ from, organizationId }, (events) => events.some((e) => e.data.type === 'CreditsGranted'));
    await grantCredits(t.runtime.commands, { organizationSlug: 'acme', tokens: 5, note: 'while a reader listens' }, testPrincipal);
    const orgEvents = await both;
    expect(orgEvents.map((e) => e.data.position)).toEqual([...orgEvents.map((e) => e.data.position)].sort((a, b) => a - b));
    expect(new Set(orgEvents.filter((e) => e.data.type === 'ExecutionCompleted').map((e) => e.data.streamId))).toEqual(new Set(ids.map((id) => `execution-${id}`)));
    expect(orgEvents.at(-1)!.data).toMatchObject({ streamId: `org-${organizationId}`, data: { tokens: 5, note: 'while a reader listens' } });

    const unknown = await collect({ organizationId: 'no-such-org' }, () => true).then(() => null, (e: unknown) => e as TRPCClientError<ConsoleRouter>);
    expect(unknown?.data?.code).toBe('NOT_FOUND');
  });

  it('bounds the live streams open on a listener: one more is refused TOO_MANY_REQUESTS, and a closed one frees its place', async () => {
    const small = await buildConsoleServer(t.runtime, { maxLiveSubscriptions: 1 });
    await small.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(small.server.address() as { port: number }).port}/internal/trpc`;
      const token = await issuer.sign({ sub: 'olga', aud: AUDIENCE });
      const live = createTRPCClient<ConsoleRouter>({ links: [httpSubscriptionLink({ url, EventSource, eventSourceOptions: { fetch: (u, init) => fetch(u, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }) } })] });
      const open = (onRefused: (code: string | undefined) => void, onStarted: () => void = () => undefined) =>
        live.events.live.subscribe({ from: 0 }, { onStarted, onData: () => undefined, onError: (error) => onRefused((error as TRPCClientError<ConsoleRouter>).data?.code) });
      let first!: ReturnType<typeof open>;
      await new Promise<void>((resolve) => (first = open(() => undefined, resolve)));
      expect(await new Promise((resolve) => open(resolve))).toBe('TOO_MANY_REQUESTS');
      first.unsubscribe();
      // The server notices the closed stream and frees its place; a new stream then opens and gets events.
      for (;;) {
        const outcome = await new Promise<string>((resolve) => {
          const next = live.events.live.subscribe({ from: 0 }, { onData: () => (next.unsubscribe(), resolve('open')), onError: (error) => resolve(String((error as TRPCClientError<ConsoleRouter>).data?.code)) });
        });
        if (outcome === 'open') break;
        expect(outcome).toBe('TOO_MANY_REQUESTS');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await small.close();
    }
  });
});
