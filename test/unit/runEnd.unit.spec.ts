import { describe, it } from 'vitest';
import { execution } from '../../src/domain/execution/execution.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const requested: ExecutionEvent = {
  type: 'ExecutionRequested',
  data: { executionId: 'e', flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'async', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null },
};
const completed: ExecutionEvent = { type: 'ExecutionCompleted', data: { executionId: 'e', result: { text: 'done' }, durationMs: 5 } };
const failed: ExecutionEvent = { type: 'ExecutionFailed', data: { executionId: 'e', reason: 'error', code: 'CODE_BLOCK_FAILED', message: 'code block threw', detail: 'Error: no', stepIndex: 0, blockName: 'b', durationMs: 5 } };
const paused: ExecutionEvent = { type: 'ExecutionPausedForToolCalls', data: { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'agent', iterationsUsed: 1, toolCalls: [], messagesDigest: 'd', messageCount: 1 } };
const ref = { executionId: 'e', stepIndex: 0, blockId: 'b', blockName: 'b', iteration: null };
/** Every fact the engine records while a run goes on. */
const facts: ExecutionEvent[] = [
  { type: 'ExecutionStepStarted', data: { ...ref, processorType: 'code', input: {}, missingPlaceholders: [] } },
  { type: 'ExecutionStepCompleted', data: { ...ref, output: {}, model: null, usage: null, durationMs: 1, attempts: 1, validationErrors: [] } },
  { type: 'ExecutionStepFailed', data: { ...ref, code: 'X', message: 'm', detail: null, durationMs: 1, model: null, usage: null, attempts: [] } },
  { type: 'CreditsConsumed', data: { executionId: 'e', organizationId: 'o', blockName: 'b', model: 'gpt-4o-mini', tokens: 3 } },
  { type: 'JobClaimed', data: { executionId: 'e', worker: 'w', claim: 2 } },
  completed,
  failed,
];
const spec = deciderSpec(execution);

/**
 * Issue 60 point 8: the decider's "nothing after the run ends" guard, specified so that deleting it
 * fails here (it was caught by nothing but long simulations). A run that completed or failed
 * records nothing more; a paused one records nothing but its resume (another spec's).
 */
describe('nothing is recorded after a run ends (decider)', () => {
  it.each(facts.map((fact) => [fact.type, fact] as const))('Given a run that completed, When %s is recorded, Then CONFLICT', (_type, fact) => {
    spec.given([requested, completed]).when({ type: 'Record', event: fact }).thenRefuses('CONFLICT');
  });

  it.each(facts.map((fact) => [fact.type, fact] as const))('Given a run that failed, When %s is recorded, Then CONFLICT', (_type, fact) => {
    spec.given([requested, failed]).when({ type: 'Record', event: fact }).thenRefuses('CONFLICT');
  });

  it.each(facts.map((fact) => [fact.type, fact] as const))('Given a run paused for tools, When %s is recorded, Then CONFLICT', (_type, fact) => {
    spec.given([requested, paused]).when({ type: 'Record', event: fact }).thenRefuses('CONFLICT');
  });

  it('Given a run that is running, When a fact is recorded, Then it is recorded as it is', () => {
    for (const fact of facts) spec.given([requested]).when({ type: 'Record', event: fact }).then([fact]);
  });

  it('Given no run, When a fact is recorded, Then EXECUTION_ID_INVALID', () => {
    spec.given([]).when({ type: 'Record', event: completed }).thenRefuses('EXECUTION_ID_INVALID');
  });
});
