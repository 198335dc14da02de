import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { executionStream, runLateChargesStream } from '../../src/domain/execution/executionEvents.ts';
import { continueExecution } from '../../src/execution/continueExecution.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { createMemoryEventStore } from './memoryEventStore.ts';
import { simulatedEngine } from './simulatedEngine.ts';

/** A model that answers every call with 5 tokens; `held`, when set, keeps the call waiting until let go. */
function answeringModel() {
  let calls = 0;
  let held: { entered: () => void; until: Promise<void> } | undefined;
  const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
    calls++;
    const wait = held;
    held = undefined;
    if (wait) {
      wait.entered();
      await wait.until;
    }
    const body = JSON.parse(String(init?.body)) as { model: string };
    const completion = { id: `c${calls}`, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `answer ${calls}` } }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
    return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const holdNext = () => {
    let entered!: () => void;
    let letGo!: () => void;
    const inCall = new Promise<void>((resolve) => (entered = resolve));
    held = { entered, until: new Promise<void>((resolve) => (letGo = resolve)) };
    return { inCall, letGo };
  };
  return { fetch, holdNext, calls: () => calls };
}

describe('a job taken over while its first worker waited on the model', () => {
  it("charges the stalled worker's call, which the provider billed, though the run moved on without it; the run ends once", async () => {
    const log = createMemoryEventStore();
    const model = answeringModel();
    const engine = simulatedEngine(log, model.fetch, () => new Date());
    const steps: StoredStep[] = [{ block: { id: randomUUID(), name: 'answer', processor_type: 'llm', prompt: '{{message}}' } }];
    const executionId = randomUUID();
    const request = { executionId, flowId: 'flow', versionId: 'v1', versionNumber: 1, organizationId: 'org', projectId: 'project', steps, message: 'go', parameters: {}, attachments: [], tools: undefined, mode: 'async' as const, apiKeyId: null, principal: { kind: 'system' as const, id: 'test' } };
    const claim = (worker: string, n: number) => continueExecution(engine, { executionId, worker, claim: n, principal: { kind: 'system', id: `job-runner:${worker}` }, loadSteps: async () => steps });

    await acceptJob(engine, request);
    const stall = model.holdNext();
    const stalled = claim('worker-a', 1);
    await stall.inCall;
    // worker-a's lease ran out: worker-b takes the job over and runs it to its end.
    const takeover = await claim('worker-b', 2);
    expect(takeover?.status).toBe('completed');
    stall.letGo();
    await expect(stalled).rejects.toThrow(/expected revision/i);

    const run = await log.readStream(executionStream(executionId));
    expect(run.filter((e) => e.type === 'ExecutionCompleted' || e.type === 'ExecutionFailed')).toHaveLength(1);
    expect(run.at(-1)?.type).toBe('ExecutionCompleted');
    const late = await log.readStream(runLateChargesStream(executionId));
    expect(late.map((e) => [e.type, (e.data as { tokens: number }).tokens, e.metadata.principal?.id])).toEqual([['CreditsConsumed', 5, 'job-runner:worker-a']]);
    // Two calls billed, two charged: worker-b's with the run, worker-a's in the late charges.
    const charged = [...run, ...late].filter((e) => e.type === 'CreditsConsumed').reduce((sum, e) => sum + (e.data as { tokens: number }).tokens, 0);
    expect(model.calls()).toBe(2);
    expect(charged).toBe(10);
  });
});
