import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { prepareExecution, prepareResume } from '../../src/execution/flowEngine.ts';
import { createMemoryEventStore } from './memoryEventStore.ts';
import { simulatedEngine } from './simulatedEngine.ts';

/** A model that asks for a tool every time: each resume pauses the run again. */
const askingModel = async (_input: string | URL | Request, init?: RequestInit) => {
  const body = JSON.parse(String(init?.body)) as { model: string; messages: unknown[] };
  const call = { id: `call_${body.messages.length}`, type: 'function', function: { name: 'lookup', arguments: '{}' } };
  const completion = { id: 'c', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [call] } }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
  return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
};

describe('the pause /step readers are told of', () => {
  it("is not forgotten by a resume that lost the race to it (the winner's next pause stays)", async () => {
    const engine = simulatedEngine(createMemoryEventStore(), askingModel, () => new Date());
    const steps: StoredStep[] = [{ block: { id: randomUUID(), name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }];
    const tools = { tools: [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }], toolChoice: 'auto' as const };
    const executionId = randomUUID();
    const request = { executionId, flowId: 'flow', versionId: 'v1', versionNumber: 1, organizationId: 'org', projectId: 'project', steps, message: 'go', parameters: {}, attachments: [], tools, mode: 'sync' as const, apiKeyId: null, principal: { kind: 'system' as const, id: 'test' } };
    const first = await (await prepareExecution(engine, request)).start();
    if (first.status !== 'paused') throw new Error(`expected a pause, got ${first.status}`);
    const resumeOf = (loadSteps: () => Promise<StoredStep[]>) =>
      prepareResume(engine, { executionId, flowId: 'flow', pausedAtStep: 'agent', toolCallMessages: [...first.toolCallMessages, { role: 'tool', tool_call_id: first.toolCalls[0]!.id, content: 'r' }], tools, followed: false, principal: request.principal, loadSteps });

    // The loser reads the pause, then waits on its version's steps while the winner resumes and pauses again.
    let release!: () => void;
    const stepsLater = new Promise<void>((resolve) => (release = resolve));
    const loser = resumeOf(async () => (await stepsLater, steps));
    const winner = await (await resumeOf(async () => steps)).start();
    expect(winner.status).toBe('paused');
    const next = engine.updates.pause(executionId);
    expect(next?.iterationsUsed).toBe(2);
    release();
    const late = await loser;
    await expect(late.start()).rejects.toMatchObject({ code: 'EXECUTION_ID_INVALID' });
    // The winner's new pause is still what /step readers are told.
    expect(engine.updates.pause(executionId)).toBe(next);
  });
});
