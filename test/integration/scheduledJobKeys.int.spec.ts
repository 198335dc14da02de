import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { firingExecutionId } from '../../src/domain/schedules/scheduleEvents.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { createTestRuntime, seedProject, type TestRuntime } from '../support/testRuntime.ts';

/**
 * Two processes start the same scheduled job (a firing's id is named by the schedule and the time):
 * the second one's first append loses, and the data key it made for the run is never stored. What it
 * seals for that run afterwards must be sealed under the stored key, or nobody could ever read it.
 */
describe("a run started twice under one id (two workers firing one schedule's time)", () => {
  let t: TestRuntime;
  let second: Runtime;

  beforeAll(async () => {
    t = await createTestRuntime('scheduled_job_keys');
    await seedProject(t.runtime, { digest: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    second = await openRuntime(loadConfig({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_DEMO: 'false' }), pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it("seals the losing process's later events under the winner's key: they open, in every process", async () => {
    const projectId = (await t.runtime.db.selectFrom('projects').select('id').executeTakeFirstOrThrow()).id;
    const firing = { scheduleId: randomUUID(), scheduledFor: '2026-01-01T07:00:00.000Z', projectId, input: { message: 'private', parameters: {}, attachments: [] }, callbackUrl: null, callbackEvents: [] };
    const slugs = { org: 'acme', project: 'web', flow: 'digest' };
    const executionId = await t.runtime.runs.startScheduledJob(firing, slugs);
    expect(await second.runs.startScheduledJob(firing, slugs)).toBe(executionId);
    expect(executionId).toBe(firingExecutionId(firing.scheduleId, firing.scheduledFor));

    // The losing process records the run's end (its job runner could have claimed the job).
    const ended = encodeEvent({ type: 'ExecutionCompleted', data: { executionId, result: { secret: 'kept' }, durationMs: 1 } });
    await second.eventStore.append(`execution-${executionId}`, [{ id: randomUUID(), ...ended, metadata: { correlationId: executionId, causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: new Date().toISOString() } }], 0);

    for (const reader of [t.runtime, second]) {
      const events = await reader.eventStore.readStream(`execution-${executionId}`);
      expect(events.map((e) => [e.type, e.erasedFields ?? []])).toEqual([['ExecutionRequested', []], ['ExecutionCompleted', []]]);
      expect(events[1]!.data).toMatchObject({ result: { secret: 'kept' } });
    }
  });
});
