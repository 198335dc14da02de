import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { buildConsoleServer } from '../../src/api/console/consoleServer.ts';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { setOperator } from '../../src/commands/operatorCommands.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalTimeoutSweep } from '../../src/approvals/approvalTimeoutSweep.ts';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { addMember } from '../../src/commands/organizationCommands.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type JwksIssuer, startJwksIssuer } from '../support/jwksIssuer.ts';
import { type TestRuntime, createTestRuntime, freePort, seedProject, serveApi, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const AUDIENCE = 'seqflow';

/** An answer of the API, as these checks read it. */
interface Answer {
  [field: string]: unknown;
  executionId?: string;
  status?: string;
  detail?: { code: string };
  waitingFor?: { stepId: string; requestedAt: string; dueAt: string };
}

/**
 * Approval blocks (issue 61, an addition to the spec): a run waits for a person without holding a
 * worker, is decided once over REST by whom the block names, and goes on as a job; nobody deciding
 * in time is decided by the block's policy, on the database's clock, once, however many workers and
 * members race for it.
 */
describe('approval blocks', () => {
  let t: TestRuntime;
  let issuer: JwksIssuer;
  let receiver: HttpsReceiver;
  let app: FastifyInstance;
  let consoleApp: FastifyInstance;
  let consoleBase: string;
  let mcpUrl: string;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> };
  const tokens: Record<string, string> = {};

  const approval = (name: string, config: Record<string, unknown>) => ({ block: { name, processor_type: 'approval', processor_config: { approval: { text: 'Refund {{parameters.amount}} to {{message}}?', approvers: { roles: ['admin'], members: ['sam'] }, ...config } } } });
  const after = { block: { name: 'after', processor_type: 'code', code: 'return { decision: input.steps.manager.decision, by: input.steps.manager.decided_by, comment: input.steps.manager.comment };' } };

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    receiver = await startHttpsReceiver((_request, res) => res.writeHead(200).end('thanks'));
    const port = await freePort();
    mcpUrl = `http://127.0.0.1:${port}/api/v1/mcp/`;
    t = await createTestRuntime('approvals', { SEQFLOW_PUBLIC_URL: `http://127.0.0.1:${port}`, OAUTH_ISSUER: issuer.issuer, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URL: issuer.jwksUrl, SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile, SEQFLOW_RUNNER_LEASE_MS: '1500' });
    key = await seedProject(t.runtime, {
      refund: [approval('manager', { timeout_ms: 600_000 }), after],
      lapse: [approval('manager', { timeout_ms: 1_000, on_timeout: 'fail' }), after],
      race: [approval('manager', { timeout_ms: 1_000, on_timeout: 'approve' }), after],
    });
    for (const [subject, role] of [['rita', 'admin'], ['sam', 'member'], ['mo', 'member']] as const) {
      await setOperator(t.runtime.commands, { subject, operator: true }, testPrincipal);
      await addMember(t.runtime.commands, { organizationSlug: 'acme', userSubject: subject, role }, testPrincipal);
      tokens[subject] = await issuer.sign({ sub: subject, aud: AUDIENCE });
    }
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime, port));
    await setOperator(t.runtime.commands, { subject: 'olga', operator: true }, testPrincipal);
    tokens.olga = await issuer.sign({ sub: 'olga', aud: AUDIENCE });
    consoleApp = await buildConsoleServer(t.runtime);
    await consoleApp.listen({ host: '127.0.0.1', port: 0 });
    consoleBase = `http://127.0.0.1:${(consoleApp.server.address() as { port: number }).port}/internal/trpc`;
  }, 60_000);
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await consoleApp?.close();
    await t?.close();
    await issuer?.close();
    await receiver?.close();
  });

  const post = async (path: string, body: unknown, bearer = key) => {
    const answer = await fetch(`${base}/seq/acme/web/${path}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: answer.status, body: (await answer.json()) as Answer };
  };
  const poll = async (flow: string, executionId: string) => (await (await fetch(`${base}/seq/acme/web/${flow}/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Answer;
  const ended = async (flow: string, executionId: string) => {
    let job: Answer = {};
    await until(async () => {
      job = await poll(flow, executionId);
      return job.status === 'completed' || job.status === 'failed';
    }, `run ${executionId} to end`);
    return job;
  };
  const decide = (flow: string, executionId: string, who: string, body: unknown) => post(`${flow}/runs/${executionId}/approvals/manager`, body, tokens[who] ?? who);
  const eventsOf = async (executionId: string) => (await t.runtime.eventStore.readStream(executionStream(executionId))).map((e) => e.type);

  it('/execute answers at once (202) with what the run waits for; the poll shows running and waitingFor; the named approver decides once, and the run goes on as a job', async () => {
    const started = await post('refund/execute', { message: 'carol@example.com', parameters: { amount: '40 EUR' } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'approval_required', blockCount: 2, waitingFor: { type: 'approval', stepId: 'manager', approvers: { roles: ['admin'], members: ['sam'] }, onTimeout: 'reject', timeoutMs: 600_000 } });
    const { executionId } = started.body as { executionId: string };
    expect(Date.parse(started.body.waitingFor!.dueAt) - Date.parse(started.body.waitingFor!.requestedAt)).toBe(600_000);
    const waiting = await poll('refund', executionId);
    expect(waiting).toMatchObject({ status: 'running', waitingFor: { stepId: 'manager' } });

    // A member the block does not name (nor their role), and an API key (a member too): refused, nothing recorded.
    expect(await decide('refund', executionId, 'mo', { decision: 'approve' })).toMatchObject({ status: 403, body: { detail: { code: 'FORBIDDEN' } } });
    expect(await decide('refund', executionId, key, { decision: 'approve' })).toMatchObject({ status: 403, body: { detail: { code: 'FORBIDDEN' } } });
    expect(await decide('refund', executionId, 'rita', { decision: 'maybe' })).toMatchObject({ status: 422, body: { detail: { code: 'VALIDATION_FAILED' } } });
    expect(await decide('refund', executionId, 'nobody-token', { decision: 'approve' })).toMatchObject({ status: 401 });
    expect(await eventsOf(executionId)).not.toContain('ApprovalDecided');

    const decided = await decide('refund', executionId, 'rita', { decision: 'approve', comment: 'fine, loyal customer' });
    expect(decided).toMatchObject({ status: 200, body: { executionId, stepId: 'manager', decision: 'approved', decidedBy: 'rita', role: 'admin' } });
    expect(await decide('refund', executionId, 'sam', { decision: 'reject' })).toMatchObject({ status: 409, body: { detail: { code: 'APPROVAL_ALREADY_DECIDED' } } });

    const job = await ended('refund', executionId);
    expect(job).toMatchObject({ status: 'completed', result: { decision: 'approved', by: 'rita', comment: 'fine, loyal customer' } });
    expect(job.waitingFor).toBeUndefined();
    expect((await eventsOf(executionId)).filter((type) => type === 'ApprovalDecided')).toHaveLength(1);
    // The audit's replay takes the wait and its decision as a legal history; the trace shows the approval step with its text and decision.
    expect((await replayExecution(t.runtime.eventStore, executionId)).divergence).toBeNull();
    const trace = await runTrace(t.runtime.eventStore, {}, executionId);
    expect(trace.steps.find((step) => step.name === 'manager')).toMatchObject({ processorType: 'approval', status: 'completed', output: { decision: 'approved', decided_by: 'rita' }, approval: { approvers: { roles: ['admin'], members: ['sam'] }, decision: 'approved', decidedBy: 'rita' } });
  });

  it('a /jobs run waits holding no lease, a named member rejects it, and the rejection is the step’s output', async () => {
    const started = await post('refund/jobs', { message: 'dave@example.com', parameters: { amount: '900 EUR' } });
    expect(started.status).toBe(202);
    const { executionId } = started.body as { executionId: string };
    await until(async () => (await poll('refund', executionId)).waitingFor?.stepId === 'manager', 'the job to wait');
    // Parked: no worker holds it (the lease row is gone once the runner gave it up).
    await until(async () => (await t.runtime.db.selectFrom('job_leases').select('execution_id').where('execution_id', '=', executionId).executeTakeFirst()) === undefined, 'the lease to be given up');
    expect(await decide('refund', executionId, 'sam', { decision: 'reject', comment: 'too much' })).toMatchObject({ status: 200, body: { decision: 'rejected', decidedBy: 'sam', role: 'member' } });
    expect(await ended('refund', executionId)).toMatchObject({ status: 'completed', result: { decision: 'rejected', by: 'sam', comment: 'too much' } });
  });

  it('sends flow.waiting, once per approval, only to a job whose callbackEvents name it', async () => {
    const hooked = (await post('refund/jobs', { message: 'fay@example.com', parameters: { amount: '3 EUR' }, callbackUrl: `${receiver.url}/hooked`, callbackEvents: ['flow.waiting', 'flow.completed'] })).body.executionId!;
    const plain = (await post('refund/jobs', { message: 'gus@example.com', parameters: { amount: '4 EUR' }, callbackUrl: `${receiver.url}/plain` })).body.executionId!;
    const waitingHook = async () => {
      let found: Record<string, unknown> | undefined;
      await until(async () => (found = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>).find((b) => b.executionId === hooked && b.event === 'flow.waiting')) !== undefined, 'the flow.waiting delivery');
      return found!;
    };
    expect(await waitingHook()).toMatchObject({ event: 'flow.waiting', result: null, waitingFor: { type: 'approval', stepId: 'manager', onTimeout: 'reject' }, truncated: false });
    for (const executionId of [hooked, plain]) {
      await until(async () => (await poll('refund', executionId)).waitingFor !== undefined, 'the job to wait');
      expect((await decide('refund', executionId, 'rita', { decision: 'approve' })).status).toBe(200);
      await ended('refund', executionId);
    }
    const eventsTo = async (path: string, executionId: string, count: number) => {
      await until(async () => receiver.received.filter((r) => r.path === path && JSON.parse(r.body).executionId === executionId).length >= count, `${count} deliveries to ${path}`);
      return receiver.received.filter((r) => r.path === path && JSON.parse(r.body).executionId === executionId).map((r) => r.headers['x-service-event']);
    };
    expect(await eventsTo('/hooked', hooked, 2)).toEqual(['flow.waiting', 'flow.completed']);
    // The spec's default subscription is the two terminal events: no waiting delivery without asking.
    expect(await eventsTo('/plain', plain, 1)).toEqual(['flow.completed']);
  });

  it('the console lists a waiting approval with its text; an operator decides it as the member they are, one who is no member is refused', async () => {
    const consoleOf = (who: string) => createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: consoleBase, headers: { authorization: `Bearer ${tokens[who]}` } })] });
    const executionId = (await post('refund/execute', { message: 'hal@example.com', parameters: { amount: '12 EUR' } })).body.executionId!;
    await t.runtime.projections.catchUp();
    const queue = await consoleOf('rita').approvals.waiting.query({ limit: 50 });
    expect(queue.find((a) => a.executionId === executionId)).toMatchObject({ stepId: 'manager', text: 'Refund 12 EUR to hal@example.com?', approvers: { roles: ['admin'], members: ['sam'] }, onTimeout: 'reject', flow: { slug: 'refund' } });
    await expect(consoleOf('olga').approvals.decide.mutate({ executionId, stepId: 'manager', decision: 'approve' })).rejects.toMatchObject({ data: { detail: { code: 'FORBIDDEN' } } });
    await expect(consoleOf('mo').approvals.decide.mutate({ executionId, stepId: 'manager', decision: 'approve' })).rejects.toMatchObject({ data: { detail: { code: 'FORBIDDEN' } } });
    expect(await consoleOf('rita').approvals.decide.mutate({ executionId, stepId: 'manager', decision: 'approve', comment: 'from the console' })).toMatchObject({ decision: 'approved', decidedBy: 'rita', role: 'admin' });
    await expect(consoleOf('rita').approvals.decide.mutate({ executionId, stepId: 'manager', decision: 'reject' })).rejects.toMatchObject({ data: { detail: { code: 'APPROVAL_ALREADY_DECIDED' } } });
    expect(await ended('refund', executionId)).toMatchObject({ status: 'completed', result: { decision: 'approved', comment: 'from the console' } });
    await t.runtime.projections.catchUp();
    expect((await consoleOf('rita').approvals.waiting.query({ limit: 50 })).map((a) => a.executionId)).not.toContain(executionId);
  });

  it('an assistant lists a flow’s waiting approvals over MCP and decides one for the member it acts for, once', async () => {
    const connect = async (sub: string) => {
      const client = new Client({ name: 'test-assistant', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${await issuer.sign({ sub, aud: mcpUrl })}` } } }));
      return client;
    };
    const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const executionId = (await post('refund/execute', { message: 'ida@example.com', parameters: { amount: '7 EUR' } })).body.executionId!;
    await t.runtime.projections.catchUp();
    const flowId = (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'refund').executeTakeFirstOrThrow()).id;
    const sam = await connect('sam');
    const mo = await connect('mo');
    try {
      const listed = await call(sam, 'list_approvals', { flow_id: flowId });
      expect((listed.structuredContent as { approvals: { flow_run_id: string; text: string }[] }).approvals.find((a) => a.flow_run_id === executionId)).toMatchObject({ step_id: 'manager', text: 'Refund 7 EUR to ida@example.com?' });
      const refused = await call(mo, 'decide_approval', { flow_run_id: executionId, step_id: 'manager', decision: 'approve' });
      expect(refused.isError).toBe(true);
      expect((refused.content[0] as { text: string }).text).toMatch(/FORBIDDEN|may be decided by/);
      const decided = await call(sam, 'decide_approval', { flow_run_id: executionId, step_id: 'manager', decision: 'reject', comment: 'not this time' });
      expect(decided.structuredContent).toMatchObject({ flow_run_id: executionId, decision: 'rejected', decided_by: 'sam', role: 'member' });
      const again = await call(sam, 'decide_approval', { flow_run_id: executionId, step_id: 'manager', decision: 'approve' });
      expect((again.content[0] as { text: string }).text).toMatch(/already been decided/);
      // A production run started over MCP waits like any other; a trial decides as the timeout would.
      const production = await call(sam, 'run_flow', { flow_id: flowId, input: { message: 'kim@example.com', parameters: { amount: '1 EUR' } }, production: true });
      expect(production.structuredContent).toMatchObject({ status: 'waiting', waiting_for: { step_id: 'manager' } });
      const trial = await call(sam, 'run_flow', { flow_id: flowId, input: { message: 'kim@example.com', parameters: { amount: '1 EUR' } } });
      expect(trial.structuredContent).toMatchObject({ status: 'completed', result: { decision: 'rejected', by: 'timeout' } });
    } finally {
      await sam.close();
      await mo.close();
    }
    expect(await ended('refund', executionId)).toMatchObject({ status: 'completed', result: { decision: 'rejected', by: 'sam' } });
  });

  it('nobody deciding in time fails the run under on_timeout: fail (APPROVAL_TIMED_OUT), decided by the sweep; a decision after it is refused', async () => {
    const started = await post('lapse/jobs', { message: 'erin@example.com', parameters: { amount: '5 EUR' } });
    const { executionId } = started.body as { executionId: string };
    const job = await ended('lapse', executionId);
    expect(job).toMatchObject({ status: 'failed', errorCode: 'APPROVAL_TIMED_OUT' });
    expect(await decide('lapse', executionId, 'rita', { decision: 'approve' })).toMatchObject({ status: 409, body: { detail: { code: 'APPROVAL_ALREADY_DECIDED' } } });
    const events = await t.runtime.eventStore.readStream(executionStream(executionId));
    const decision = events.find((e) => e.type === 'ApprovalDecided')!;
    expect(decision.data).toMatchObject({ decision: null, decidedBy: { kind: 'timeout' } });
  });

  it('an approval that fell due while no worker ran is decided once a worker starts again: the deadline waits in the database', async () => {
    await workers.stop();
    const { body } = await post('lapse/execute', { message: 'jo@example.com', parameters: { amount: '2 EUR' } });
    const executionId = body.executionId!;
    await t.runtime.projections.catchUp();
    await until(async () => (await t.runtime.db.selectFrom('approvals').select('status').where('execution_id', '=', executionId).where('due_at', '<=', new Date()).executeTakeFirst()) !== undefined, 'the approval to fall due');
    // Nothing decided it while every worker was down.
    expect(await eventsOf(executionId)).not.toContain('ApprovalDecided');
    workers = await startWorkers(t.runtime);
    expect(await ended('lapse', executionId)).toMatchObject({ status: 'failed', errorCode: 'APPROVAL_TIMED_OUT' });
    expect((await eventsOf(executionId)).filter((type) => type === 'ApprovalDecided')).toHaveLength(1);
  });

  it('two workers’ sweeps and a member racing for a due approval: exactly one decision, the losers refused or finding nothing to do', async () => {
    const sweeps = ['a', 'b'].map((sweeper) => createApprovalTimeoutSweep({ db: t.runtime.db, commands: t.runtime.commands, logger: t.runtime.logger, sweeper, intervalMs: 60_000 }));
    for (let round = 0; round < 4; round++) {
      const { body } = await post('race/execute', { message: `race ${round}`, parameters: { amount: '1 EUR' } });
      const executionId = body.executionId as string;
      // Due on the database's clock (the approvals row, projected from the request's record).
      await until(async () => (await t.runtime.db.selectFrom('approvals').select('status').where('execution_id', '=', executionId).where('due_at', '<=', new Date()).executeTakeFirst()) !== undefined, 'the approval to fall due');
      const [swept, sweptAgain, member] = await Promise.all([sweeps[0]!.sweepOnce(), sweeps[1]!.sweepOnce(), decide('race', executionId, 'rita', { decision: 'reject' })]);
      const decisions = (await t.runtime.eventStore.readStream(executionStream(executionId))).filter((e) => e.type === 'ApprovalDecided');
      expect(decisions).toHaveLength(1);
      const byMember = (decisions[0]!.data as { decidedBy: { kind: string } }).decidedBy.kind === 'member';
      expect(member.status).toBe(byMember ? 200 : 409);
      if (!byMember) expect(member.body.detail?.code).toBe('APPROVAL_ALREADY_DECIDED');
      // The periodic sweep of the running workers may have been a fourth racer: these two decided it at most once between them.
      expect(swept + sweptAgain).toBeLessThanOrEqual(byMember ? 0 : 1);
      const job = await ended('race', executionId);
      expect(job.result).toMatchObject({ decision: byMember ? 'rejected' : 'approved', by: byMember ? 'rita' : 'timeout' });
    }
  });
});
