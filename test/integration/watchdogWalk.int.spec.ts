import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import type { ExecutionEvent } from '../../src/domain/execution/executionEvents.ts';
import { createWatchdog } from '../../src/watchdog/watchdog.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

/**
 * Issue 60 point 7: the watchdog finds a silent run whatever its age. It looked only at the 200
 * oldest running runs, so a newer one that had gone silent behind them was never reported; it now
 * walks every running run, page by page in creation order (a bounded number of pages a check).
 */
describe('the watchdog walks every running run', () => {
  let t: TestRuntime;

  beforeAll(async () => {
    t = await createTestRuntime('watchdog_walk');
  });
  afterAll(async () => {
    await t?.close();
  });

  const startJob = async (executionId: string, minutesAgo: number) => {
    const occurredAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const events: ExecutionEvent[] = [
      { type: 'ExecutionRequested', data: { executionId, flowId: 'f', versionId: 'v', versionNumber: 1, organizationId: 'o', projectId: 'p', mode: 'async', message: 'm', parameters: {}, attachments: [], apiKeyId: null, blockCount: 1, callbackUrl: null, callbackEvents: [], testRunId: null, rerunOf: null, backtestId: null, tools: null, schedule: null, parent: null } },
      { type: 'JobClaimed', data: { executionId, worker: 'w', claim: 1 } },
    ];
    await t.runtime.eventStore.append(`execution-${executionId}`, events.map((e) => ({ id: randomUUID(), ...encodeEvent(e), metadata: { correlationId: executionId, causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt } })), 'no_stream');
  };

  it('reports each of five silent runs in one check, two to a page, and again on the next check', async () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    for (const [i, id] of ids.entries()) await startJob(id, 50 - i);
    await t.runtime.projections.catchUp();
    // An hour on, all five have been silent past the bound.
    const watchdog = createWatchdog({ db: t.runtime.db, eventStore: t.runtime.eventStore, projections: t.runtime.projections, logger: t.runtime.logger, now: () => new Date(Date.now() + 3_600_000), runPage: 2, bounds: { silentRunMs: 60_000, jobMaxClaims: 5, projectionMaxBehind: 1000, scheduleOverdueMs: 60_000 } });
    for (let check = 0; check < 2; check++) {
      const silent = (await watchdog.check()).findings.filter((f) => f.kind === 'silent_run').map((f) => f.id);
      expect(silent.sort()).toEqual([...ids].sort());
    }
  });
});
