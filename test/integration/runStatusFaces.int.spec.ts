import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/domain/domainEvent.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { jobStatusOf } from '../../src/domain/execution/runStatus.ts';
import { appendWithRetry } from '../../src/eventstore/streams.ts';
import type { RunCaller } from '../../src/runs/runCaller.ts';
import { runTrace } from '../../src/testing/runTrace.ts';
import { eventsOf, runStatusCases } from '../support/runStatusCases.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const slugs = { org: 'acme', project: 'web', flow: 'hello' };

describe('every face shows the one run status: the trace, the runs listing, the job poll and the jobs listing', () => {
  let t: TestRuntime;
  let caller: RunCaller;
  const runs = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestRuntime('runstatus');
    await seedProject(t.runtime, { hello: [{ block: { name: 'a', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    const flow = await t.runtime.db.selectFrom('flows').select(['id', 'organization_id', 'project_id', 'production_version_id']).where('slug', '=', 'hello').executeTakeFirstOrThrow();
    caller = { projectId: flow.project_id, apiKeyId: null, ...testPrincipal };
    for (const c of runStatusCases) {
      const executionId = randomUUID();
      runs.set(c.name, executionId);
      const events = eventsOf(c, executionId, { flowId: flow.id, versionId: flow.production_version_id!, organizationId: flow.organization_id, projectId: flow.project_id });
      const metadata = { correlationId: executionId, causationId: null, principal: testPrincipal.principal, occurredAt: new Date().toISOString() };
      await appendWithRetry(t.runtime.eventStore, executionStream(executionId), events.map((event) => ({ id: randomUUID(), ...encodeEvent(event), metadata })), 'no_stream');
    }
    await t.runtime.projections.catchUp();
  });
  afterAll(() => t?.close());

  for (const c of runStatusCases) {
    it(`${c.name}: ${c.status}`, async () => {
      const executionId = runs.get(c.name)!;
      expect((await runTrace(t.runtime.eventStore, {}, executionId)).status).toBe(c.status);
      const listed = await t.runtime.runs.listRuns(caller, slugs, {}, { limit: 100 });
      expect(listed.items.find((run) => run.executionId === executionId)?.status).toBe(c.status);
      if (c.mode !== 'async') return;
      expect((await t.runtime.runs.pollJob(caller, { ...slugs, executionId })).status).toBe(jobStatusOf(c.status));
      const jobs = await t.runtime.runs.listJobs(caller, slugs, {}, { limit: 100 });
      expect(jobs.items.find((job) => job.executionId === executionId)?.status).toBe(jobStatusOf(c.status));
    });
  }
});
