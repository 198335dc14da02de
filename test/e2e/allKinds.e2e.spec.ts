import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRun } from '../../src/audit/runExport.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { findOrganizationId } from '../../src/commands/organizationCommands.ts';
import { setSecret } from '../../src/commands/secretCommands.ts';
import { childExecutionId } from '../../src/domain/blocks/flow/subflowLink.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { type McpToolServer, startMcpToolServer } from '../support/mcpToolServer.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const CRM_TOKEN = 'crm-4b1e';
const MCP_TOKEN = 'orders-91c0';

/** docs/flows.md's support-ticket pipeline as written there, its two example hosts replaced by the test's servers. */
function supportPipeline(crm: string, orders: string): Record<string, unknown[]> {
  const section = readFileSync(path.join(import.meta.dirname, '../../docs/flows.md'), 'utf8').split('## A flow of every kind')[1]!.split('\n## ')[0]!;
  const files = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!.replaceAll('https://crm.example.com', crm).replaceAll('https://orders.example.com/mcp', orders)) as { slug: string; steps: unknown[] });
  return Object.fromEntries(files.map((f) => [f.slug, f.steps]));
}

/**
 * Issue 61's pipeline end to end: an http lookup, an llm router with an http and an MCP server tool,
 * a switch whose refund branch waits for an approval, and a sub-flow; against a real HTTPS server and
 * a real MCP server (the SDK's). The run waits for the approval, is decided over REST, goes on as a
 * job, and its trace, audit export and replay show every step.
 */
describe('a flow of every kind (docs/flows.md)', () => {
  let crm: HttpsReceiver;
  let orders: McpToolServer;
  let service: SeededService;
  let workers: { stop(): Promise<void> };

  beforeAll(async () => {
    crm = await startHttpsReceiver((request, res) => {
      if (request.headers.authorization !== `Bearer ${CRM_TOKEN}`) return res.writeHead(401).end('no');
      if (request.path.startsWith('/customers/')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c-7', name: 'Carol', plan: 'gold' }));
      if (request.path === '/tickets') return res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ticket: 'T-1' }));
      res.writeHead(404).end();
    });
    orders = await startMcpToolServer(MCP_TOKEN);
    const bundle = path.join(tmpdir(), `seqflow-cas-${process.pid}.pem`);
    writeFileSync(bundle, `${readFileSync(crm.caFile, 'utf8')}\n${readFileSync(orders.caFile, 'utf8')}`);
    service = await startSeededService('all_kinds', {}, { SEQFLOW_OUTBOUND_EXTRA_CA_FILE: bundle, SEQFLOW_LLM_MAX_RETRIES: '0' });
    const organizationId = await findOrganizationId(service.t.runtime.commands, 'acme');
    await setSecret(service.t.runtime.commands, { organizationId, name: 'crm_token', value: CRM_TOKEN }, service.t.runtime.masterKey, testPrincipal);
    await setSecret(service.t.runtime.commands, { organizationId, name: 'orders_mcp', value: MCP_TOKEN }, service.t.runtime.masterKey, testPrincipal);
    for (const [slug, steps] of Object.entries(supportPipeline(crm.url, orders.url))) {
      await importFlow(service.t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    }
    await service.t.runtime.projections.catchUp();
    workers = await startWorkers(service.t.runtime);
  }, 60_000);
  afterAll(async () => {
    await workers?.stop();
    await service?.close();
    await orders?.close();
    await crm?.close();
  });

  it('looks up, routes with its server tools, waits in the refund branch for an approval, then writes the reply in a sub-flow; every step shows in the trace, the audit and the replay', async () => {
    service.model.script(
      { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: '{"id":"o-1"}' }, { id: 'c2', name: 'file_ticket', arguments: '{"subject":"refund o-1"}' }] },
      { content: '{"queue":"refund","summary":"refund order o-1 (ticket T-1)"}' },
      { content: 'Dear Carol, your refund is on its way.' },
    );
    const started = await service.execute('support', { message: 'I want a refund for o-1', parameters: { customer_id: 'c-7' } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const executionId = started.body.executionId!;
    expect(started.body).toMatchObject({ status: 'approval_required', waitingFor: { stepId: 'manager' } });

    const decided = await fetch(`${service.base}/seq/acme/web/support/runs/${executionId}/approvals/manager`, { method: 'POST', headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve', comment: 'fine' }) });
    expect(decided.status, await decided.clone().text()).toBe(200);
    let job: { status?: string; result?: unknown } = {};
    await until(async () => {
      job = (await (await fetch(`${service.base}/seq/acme/web/support/jobs/${executionId}`, { headers: { authorization: `Bearer ${service.key}` } })).json()) as typeof job;
      return job.status === 'completed' || job.status === 'failed';
    }, 'the decided run to end');
    expect(job).toMatchObject({ status: 'completed', result: { text: 'Dear Carol, your refund is on its way.' } });

    expect(crm.received.map((r) => r.path)).toEqual(['/customers/c-7', '/tickets']);
    expect(orders.calls.map((c) => c.name)).toEqual(['lookup_order']);
    const trace = await runTrace(service.t.runtime.eventStore, {}, executionId);
    expect(trace.steps.map((s) => [s.name, s.processorType ?? null, s.status])).toEqual([
      ['lookup', 'http', 'completed'],
      ['router', 'llm', 'completed'],
      ['noted', null, 'skipped'],
      ['manager', 'approval', 'completed'],
      ['answer', 'flow', 'completed'],
    ]);
    const childId = childExecutionId(executionId, 3, 'answer', null);
    expect(trace.steps.find((s) => s.name === 'answer')).toMatchObject({ subflow: { executionId: childId }, output: { text: 'Dear Carol, your refund is on its way.' } });
    expect(trace.steps.find((s) => s.name === 'manager')).toMatchObject({ output: { decision: 'approved', comment: 'fine' } });
    expect(trace.steps.find((s) => s.name === 'lookup')!.requests).toEqual([expect.objectContaining({ status: 200, outcome: 'answered' })]);
    expect(trace.costUsd).toBeGreaterThan((await runTrace(service.t.runtime.eventStore, {}, childId)).costUsd!);

    for (const id of [executionId, childId]) {
      expect((await replayExecution(service.t.runtime.eventStore, id)).divergence).toBeNull();
      const lines = await exportRun(service.t.runtime, id);
      expect(verifyExport(`${lines.join('\n')}\n`)).toMatchObject({ ok: true });
    }
    const exported = (await exportRun(service.t.runtime, executionId)).map((line) => JSON.parse(line) as { type?: string });
    for (const type of ['HttpRequestAttempted', 'ServerToolCalled', 'ExecutionStepSkipped', 'ApprovalRequested', 'ApprovalDecided', 'SubflowStarted']) expect(exported.map((l) => l.type)).toContain(type);
    // The secrets were sent, never recorded.
    expect(JSON.stringify(exported)).not.toContain(CRM_TOKEN);
    expect(JSON.stringify(exported)).not.toContain(MCP_TOKEN);
  });
});
