import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importFlow, publishVersion, setProductionVersion } from '../../src/commands/flowCommands.ts';
import { childExecutionId } from '../../src/domain/blocks/flow/subflowLink.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { exportRun } from '../../src/audit/runExport.ts';
import { startBacktest } from '../../src/backtests/backtestRunner.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { createInterruptedRunSweep } from '../../src/runs/interruptedRuns.ts';
import { randomUUID } from 'node:crypto';
import { eventsApart } from '../support/runEventsApart.ts';
import { type SeededService, startSeededService } from '../support/seededService.ts';
import { testPrincipal } from '../support/testRuntime.ts';

const scope = { organizationSlug: 'acme', projectSlug: 'web' };
const subflow = (name: string, config: Record<string, unknown>) => ({ block: { name, processor_type: 'flow', processor_config: { subflow: config } } });
const code = (name: string, body: string) => ({ block: { name, processor_type: 'code', code: body } });

/**
 * Sub-flows (issue 61 point 6, an addition to the spec): a `flow` block runs another flow as a
 * child run with a stream of its own, linked both ways; its result is the step's output, its cost
 * the step's, its failure the step's. Publishing refuses chains that are missing, cyclic, too deep
 * or would wait; a chain changed since is stopped at run time. Erasure follows the link both ways.
 */
describe('flow blocks (sub-flows)', () => {
  let service: SeededService;
  const commands = () => service.t.runtime.commands;
  const flowFile = (slug: string, steps: unknown[]) => ({ ...scope, file: { slug, name: slug, steps } });
  const eventsOf = async (executionId: string) => eventsApart(await service.t.runtime.eventStore.readStream(executionStream(executionId))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> & { tokens?: number } }));
  const traceOf = (executionId: string) => runTrace(service.t.runtime.eventStore, { organizationSlug: 'acme', projectSlug: 'web' } as never, executionId);

  beforeAll(async () => {
    service = await startSeededService('subflows', {
      classify: [{ block: { name: 'label', processor_type: 'llm', model: 'gpt-4o', prompt: 'Classify for {{parameters.customer.name}}: {{message}}' } }],
      broken: [code('boom', "throw new Error('the classifier is down')")],
      ticket: [
        code('ticket', 'return { text: input.message, customer: input.parameters.customer };'),
        subflow('classified', { flow: 'classify', message: '{{steps.ticket.output.text}}', parameters: { customer: '{{steps.ticket.output.customer}}' } }),
        code('after', 'return { label: input.steps.classified.label, customer: input.steps.ticket.customer.name };'),
      ],
      relay: [subflow('inner', { flow: 'broken' })],
    });
  }, 60_000);
  afterAll(async () => service?.close());
  beforeEach(() => service.model.reset());

  it("runs the child to its end: the child's result is the step's output, its stream is its own and names the parent, and its cost rolls up into the parent's", async () => {
    service.model.script({ content: '{"label":"refund"}', usage: { prompt_tokens: 120, completion_tokens: 8 } });
    const { status, body } = await service.execute('ticket', { message: 'I want my money back', parameters: { customer: { name: 'Carol', tier: 'gold' } } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body as { result?: unknown }).result).toEqual({ label: 'refund', customer: 'Carol' });
    // The child got the rendered message and the parameter as the object it was (a lone placeholder keeps its type).
    expect(service.model.requests[0]!.body.messages.at(-1)).toMatchObject({ content: 'Classify for Carol: I want my money back' });

    const parentId = body.executionId!;
    const childId = childExecutionId(parentId, 1, 'classified', null);
    const parent = await eventsOf(parentId);
    expect(parent.filter((e) => e.type === 'SubflowStarted').map((e) => e.data)).toEqual([expect.objectContaining({ blockName: 'classified', childExecutionId: childId, childVersionNumber: 1 })]);
    // The child's credits are charged once, in its own stream.
    expect(parent.filter((e) => e.type === 'CreditsConsumed')).toEqual([]);
    const child = await eventsOf(childId);
    expect(child[0]).toMatchObject({ type: 'ExecutionRequested', data: { mode: 'subflow', message: 'I want my money back', parameters: { customer: { name: 'Carol', tier: 'gold' } }, parent: { executionId: parentId, stepIndex: 1, blockName: 'classified', iteration: null, depth: 1 } } });
    expect(child.filter((e) => e.type === 'CreditsConsumed').map((e) => e.data.tokens)).toEqual([128]);

    const parentTrace = await traceOf(parentId);
    const childTrace = await traceOf(childId);
    const step = parentTrace.steps.find((s) => s.name === 'classified')!;
    expect(step).toMatchObject({ processorType: 'flow', status: 'completed', subflow: { executionId: childId, versionNumber: 1 }, usage: { promptTokens: 120, completionTokens: 8, totalTokens: 128 }, output: { label: 'refund' } });
    expect(childTrace.costUsd).toBeGreaterThan(0);
    expect(step.costUsd).toBe(childTrace.costUsd);
    expect(parentTrace.costUsd).toBe(childTrace.costUsd);
    expect(childTrace).toMatchObject({ mode: 'subflow', parent: { executionId: parentId, blockName: 'classified' }, status: 'completed' });

    // The audit replays both runs' histories, and the parent's export names its child.
    for (const id of [parentId, childId]) expect((await replayExecution(service.t.runtime.eventStore, id)).divergence).toBeNull();
    const exported = (await exportRun(service.t.runtime, parentId)).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(exported.filter((line) => line.type === 'SubflowStarted')).toEqual([expect.objectContaining({ data: expect.objectContaining({ childExecutionId: childId }) })]);

    await service.t.runtime.projections.catchUp();
    const row = await service.t.runtime.db.selectFrom('runs').select(['mode', 'parent_execution_id', 'status']).where('execution_id', '=', childId).executeTakeFirstOrThrow();
    expect(row).toEqual({ mode: 'subflow', parent_execution_id: parentId, status: 'completed' });
  });

  it("fails the parent's step with the child's failure: its code, and where and why the child failed", async () => {
    const { status, body } = await service.execute('relay', { message: 'hello' });
    const childId = childExecutionId(body.executionId ?? body.detail!.executionId!, 0, 'inner', null);
    expect(status).toBe(422);
    expect(body.detail).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: expect.stringContaining(`the sub-flow broken (production) (run ${childId}) failed at its block 'boom'`) });
    const childEnd = (await eventsOf(childId)).at(-1)!;
    expect(childEnd).toMatchObject({ type: 'ExecutionFailed', data: { code: 'CODE_BLOCK_FAILED', blockName: 'boom' } });
    const parentTrace = await traceOf(body.detail!.executionId!);
    expect(parentTrace.steps).toEqual([expect.objectContaining({ name: 'inner', status: 'failed', subflow: expect.objectContaining({ executionId: childId }), error: expect.objectContaining({ code: 'CODE_BLOCK_FAILED' }) })]);
    expect(parentTrace.failure).toMatchObject({ code: 'CODE_BLOCK_FAILED', step: 'inner' });
  });

  it('refuses at publish a flow it cannot run: a missing flow or version, a chain that leads back to the flow, and a child that would wait for a person', async () => {
    const refusal = (file: ReturnType<typeof flowFile>) => importFlow(commands(), { ...file, publish: true }, testPrincipal).catch((error: unknown) => error as { code: string; message: string });
    expect(await refusal(flowFile('orphan', [subflow('x', { flow: 'nowhere' })]))).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining("steps[0].block (block 'x').processor_config.subflow: the flow nowhere (production) does not exist") });
    expect(await refusal(flowFile('pinned', [subflow('x', { flow: 'classify', version: 9 })]))).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('has no version 9') });
    await importFlow(commands(), { ...flowFile('hold', [{ block: { name: 'ok', processor_type: 'approval', processor_config: { approval: { text: 'ok?', approvers: { roles: ['admin'] } } } } }]), production: true }, testPrincipal);
    expect(await refusal(flowFile('waits', [subflow('x', { flow: 'hold' })]))).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining("has the approval block 'ok', which waits for someone outside the run") });

    // ping → pong → ping: the version that would close the loop is refused, through the chain.
    await importFlow(commands(), { ...flowFile('ping', [code('p', 'return 1;')]), production: true }, testPrincipal);
    await importFlow(commands(), { ...flowFile('pong', [subflow('to-ping', { flow: 'ping' })]), production: true }, testPrincipal);
    expect(await refusal(flowFile('ping', [subflow('to-pong', { flow: 'pong' })]))).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('ping → pong → ping') });
    await importFlow(commands(), { ...flowFile('self', [code('a', 'return 1;')]), production: true }, testPrincipal);
    expect(await refusal(flowFile('self', [subflow('me', { flow: 'self' })]))).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('self → self') });
  });

  it('refuses a production switch that closes a cycle, and stops at run time a chain that grew too deep since it was published', async () => {
    // A version published before its target led back to it: becoming production is refused.
    const { flowId: tick } = await importFlow(commands(), { ...flowFile('tick', [code('t', 'return 1;')]), production: true }, testPrincipal);
    await importFlow(commands(), { ...flowFile('tock', [subflow('to-tick', { flow: 'tick', version: 1 })]), production: true }, testPrincipal);
    const { flowId: tick2 } = await importFlow(commands(), flowFile('tick', [subflow('to-tock', { flow: 'tock' })]), testPrincipal);
    expect(tick2).toBe(tick);
    const refused = await publishVersion(commands(), { flowId: tick, note: null }, testPrincipal).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('tick → tock → tick') });

    // d4 → d3 → d2 → d1 → d0 is as deep as chains go; d0 then runs e, and d4's run stops at depth 5.
    await importFlow(commands(), { ...flowFile('e', [code('e', 'return 1;')]), production: true }, testPrincipal);
    await importFlow(commands(), { ...flowFile('d0', [code('d', 'return 0;')]), production: true }, testPrincipal);
    for (const n of [1, 2, 3, 4]) await importFlow(commands(), { ...flowFile(`d${n}`, [subflow('down', { flow: `d${n - 1}` })]), production: true }, testPrincipal);
    expect(await importFlow(commands(), { ...flowFile('d5', [subflow('down', { flow: 'd4' })]), publish: true }, testPrincipal).catch((error: unknown) => error)).toMatchObject({ code: 'FLOW_INVALID', message: expect.stringContaining('nest more than 4 levels') });
    const { flowId: d0, versionId } = await importFlow(commands(), { ...flowFile('d0', [subflow('down', { flow: 'e' })]), publish: true }, testPrincipal);
    await setProductionVersion(commands(), { flowId: d0, versionId: versionId! }, testPrincipal);
    await service.t.runtime.projections.catchUp();
    const { status, body } = await service.execute('d4', { message: 'deep' });
    expect(status).toBe(422);
    expect(body.detail).toMatchObject({ code: 'SUBFLOW_DEPTH_EXCEEDED', message: expect.stringContaining("failed at its block 'down'") });
  });

  it('erases both ways along the link: erasing the parent erases its child, and erasing a child erases its parent', async () => {
    const erase = async (flow: string, executionId: string) => {
      const answer = await fetch(`${service.base}/seq/acme/web/${flow}/runs/${executionId}/data?reason=request+7`, { method: 'DELETE', headers: { authorization: `Bearer ${service.key}` } });
      return { status: answer.status, body: (await answer.json()) as { derived: { executionId: string; derivation: string }[] } };
    };
    const run = async () => {
      service.model.script({ content: '{"label":"refund"}', usage: { prompt_tokens: 5, completion_tokens: 1 } });
      const { body } = await service.execute('ticket', { message: 'erase me', parameters: { customer: { name: 'Dora' } } });
      await service.t.runtime.projections.catchUp();
      return { parentId: body.executionId!, childId: childExecutionId(body.executionId!, 1, 'classified', null) };
    };
    const first = await run();
    const erased = await erase('ticket', first.parentId);
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body.derived).toEqual([expect.objectContaining({ executionId: first.childId, derivation: 'subflow' })]);
    expect((await eventsOf(first.childId))[0]).toMatchObject({ data: { message: null, parameters: {} } });

    const second = await run();
    const fromChild = await erase('classify', second.childId);
    expect(fromChild.status, JSON.stringify(fromChild.body)).toBe(200);
    expect(fromChild.body.derived).toEqual([expect.objectContaining({ executionId: second.parentId, derivation: 'parent_run' })]);
    const parentEvents = await eventsOf(second.parentId);
    expect(parentEvents[0]).toMatchObject({ data: { message: null, parameters: {} } });
    expect(parentEvents.find((e) => e.type === 'ExecutionStepCompleted' && e.data.blockName === 'classified')).toMatchObject({ data: { output: null } });
  });

  it("backtests follow the link: a replay of the parent runs its flow block's child as a child of the replay", async () => {
    service.model.respond = () => ({ content: '{"label":"refund"}', usage: { prompt_tokens: 5, completion_tokens: 1 } });
    const { body } = await service.execute('ticket', { message: 'replay me', parameters: { customer: { name: 'Eve' } } });
    await service.t.runtime.projections.catchUp();
    const flowId = (await service.t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'ticket').executeTakeFirstOrThrow()).id;
    const report = await (await startBacktest(service.t.runtime.execution, {}, { flowId, draft: true, selection: { kind: 'last', count: 1 } }, testPrincipal)).run();
    expect(report.runs.map((r) => [r.executionId, r.outcome])).toEqual([[body.executionId, 'same']]);
    const replayId = report.runs[0]!.backtestExecutionId!;
    const child = await eventsOf(childExecutionId(replayId, 1, 'classified', null));
    expect(child[0]).toMatchObject({ type: 'ExecutionRequested', data: { mode: 'subflow', message: 'replay me', parent: { executionId: replayId } } });
    expect(child.at(-1)).toMatchObject({ type: 'ExecutionCompleted', data: { result: { label: 'refund' } } });
  });

  it('ends a child run still running once its parent has ended (its owner is gone): RUN_INTERRUPTED', async () => {
    const parentId = randomUUID();
    const childId = childExecutionId(parentId, 0, 'inner', null);
    const base = { flowId: randomUUID(), versionId: randomUUID(), versionNumber: 1, organizationId: randomUUID(), projectId: randomUUID(), message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null };
    const record = (executionId: string, event: ExecutionEvent) => handleCommand(commands(), executionStream(executionId), execution, { type: 'Record', event }, testPrincipal);
    await record(parentId, { type: 'ExecutionRequested', data: { ...base, executionId: parentId, mode: 'sync', parent: null } });
    await record(childId, { type: 'ExecutionRequested', data: { ...base, executionId: childId, mode: 'subflow', parent: { executionId: parentId, stepIndex: 0, blockName: 'inner', iteration: null, depth: 1 } } });
    await service.t.runtime.projections.catchUp();
    const sweep = createInterruptedRunSweep({ db: service.t.runtime.db, engine: service.t.runtime.execution, logger: service.t.runtime.logger, sweeper: 'test', intervalMs: 1000 });
    // While the parent runs, its child is its owner's: left alone.
    await sweep.sweepOnce();
    expect((await eventsOf(childId)).map((e) => e.type)).toEqual(['ExecutionRequested']);
    await record(parentId, { type: 'ExecutionFailed', data: { executionId: parentId, reason: 'error', code: 'RUN_INTERRUPTED', message: 'its process died', detail: null, stepIndex: null, blockName: null, durationMs: 5 } });
    await service.t.runtime.projections.catchUp();
    expect(await sweep.sweepOnce()).toBe(1);
    expect((await eventsOf(childId)).at(-1)).toMatchObject({ type: 'ExecutionFailed', data: { code: 'RUN_INTERRUPTED', message: expect.stringContaining(`(${parentId}) ended (failed)`) } });
  });
});
