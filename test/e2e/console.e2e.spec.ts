import { TRPCClientError, createTRPCClient, httpLink } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { issueConsoleLink } from '../../src/commands/consoleLinkCommands.ts';
import { setOperator } from '../../src/commands/operatorCommands.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

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

  const client = (headers: Record<string, string> = {}) => createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: `${consoleBase}/internal/trpc`, headers })] });
  const asOperator = async (sub = 'olga') => client({ authorization: `Bearer ${await issuer.sign({ sub, aud: AUDIENCE })}` });
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    return error as TRPCClientError<ConsoleRouter>;
  };

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    t = await createTestRuntime('console', { OAUTH_ISSUER: issuer.issuer, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: issuer.jwksUrl });
    const key = await seedProject(t.runtime, { hello: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    let base: string;
    ({ app: api, base } = await serveApi(t.runtime));
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

  it('opens a session with a one-time link (a cookie), refusing the link the second time', async () => {
    const { token } = await issueConsoleLink(t.runtime.commands, { operator: 'oncall' }, testPrincipal);
    const login = await fetch(`${consoleBase}/login?token=${token}`);
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ signedIn: 'oncall' });
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^seqflow_console=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    expect((await fetch(`${consoleBase}/login?token=${token}`)).status).toBe(401);
    expect((await fetch(`${consoleBase}/login`)).status).toBe(422);
    const session = client({ cookie: cookie.split(';')[0]! });
    expect(await session.system.status.query()).toMatchObject({ tasks: expect.any(Array), jobs: expect.any(Object), deliveries: expect.any(Object), leases: { jobs: [], deliveries: [] } });
    expect((await refusal(client({ cookie: 'seqflow_console=forged' }).system.status.query())).data?.code).toBe('UNAUTHORIZED');
  });

  it('reads a run from the log and answers NOT_FOUND with the service\'s code for an unknown one', async () => {
    const olga = await asOperator();
    expect(await olga.runs.get.query({ executionId })).toMatchObject({ executionId, status: 'completed', result: { text: 'hi' }, steps: [expect.objectContaining({ name: 'echo', status: 'completed' })] });
    const stepId = ((await olga.runs.get.query({ executionId })).steps[0] as { stepId: string }).stepId;
    expect(await olga.runs.stepTrace.query({ executionId, stepId })).toMatchObject({ name: 'echo', executions: [expect.objectContaining({ output: 'hi' })] });
    const missing = await refusal(olga.runs.get.query({ executionId: 'no-such-run' }));
    expect(missing.data?.code).toBe('NOT_FOUND');
    expect((missing.shape?.data as { detail: { code: string } }).detail.code).toBe('EXECUTION_NOT_FOUND');
    expect((await refusal(olga.flows.versions.query({ flowId: 'no-such-flow' }))).data?.code).toBe('NOT_FOUND');
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
});
