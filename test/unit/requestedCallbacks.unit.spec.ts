import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { createRequestedCallbacks } from '../../src/workers/requestedCallbacks.ts';

type Requested = Extract<ExecutionEvent, { type: 'ExecutionRequested' }>;

const requested = (executionId: string, mode: Requested['data']['mode'], callbackUrl: string | null = null): Requested => ({
  type: 'ExecutionRequested',
  data: {
    executionId, flowId: 'flow', versionId: 'version', versionNumber: 1, organizationId: 'org', projectId: 'project', mode, message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1,
    callbackUrl, callbackEvents: callbackUrl ? ['flow.completed'] : [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null,
  },
});
const metadata = { metadata: { correlationId: 'c', causationId: null, principal: { kind: 'system' as const, id: 't' }, occurredAt: '2026-11-24T00:00:00.000Z', traceparent: '00-trace-span-01' } };

describe("the delivery creator's memory of runs requested", () => {
  it("knows a job's callback, and that any other run has none, until told to forget it (a run ends once)", () => {
    const requests = createRequestedCallbacks(10);
    requests.remember(requested('job', 'async', 'https://receiver.example/hook'), metadata);
    requests.remember(requested('plain-job', 'async'), metadata);
    requests.remember(requested('sync', 'sync'), metadata);
    const callback = { flowId: 'flow', organizationId: 'org', callbackUrl: 'https://receiver.example/hook', callbackEvents: ['flow.completed'], traceparent: '00-trace-span-01', schedule: null, requestedAt: '2026-11-24T00:00:00.000Z' };
    expect(requests.get('job')).toEqual(callback);
    expect(requests.get('plain-job')).toBe('none');
    expect(requests.get('sync')).toBe('none');
    // Still known when asked again (a retry after a failed creation), until forgotten: an unknown run is read from its stream instead.
    expect(requests.get('job')).toEqual(callback);
    for (const id of ['job', 'plain-job', 'sync']) requests.forget(id);
    expect(requests.get('job')).toBeUndefined();
    expect(requests.size()).toBe(0);
  });

  it('keeps the newest runs up to its bound, forgetting the oldest first', () => {
    const requests = createRequestedCallbacks(2);
    for (const id of ['a', 'b', 'c']) requests.remember(requested(id, 'sync'), metadata);
    expect(requests.size()).toBe(2);
    expect(requests.get('a')).toBeUndefined();
    expect(requests.get('b')).toBe('none');
    expect(requests.get('c')).toBe('none');
  });
});
