import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { schedule } from '../../src/domain/schedules/schedule.ts';
import { scheduleStream } from '../../src/domain/schedules/scheduleEvents.ts';
import { changeSchedule } from '../../src/schedules/scheduleCommands.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * The watchdog checks the service's promises: a job held in its model call with its lease renewed
 * and no event is a silent run; a projection left behind the log is behind. /health counts them,
 * the metrics gauge them, `seqflow doctor` prints them and exits 1; once the work moves, they go.
 */
describe('the watchdog', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  // A held model call, let go in afterAll too, so a failed check does not leave the server waiting on it.
  let release: () => void = () => undefined;

  const health = async () => (await (await fetch(`${base}/health`)).json()) as { status: string; watchdog: { counts: Record<string, number> } | null };
  const doctor = async () => {
    const result = await runCli(['doctor'], { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn', SEQFLOW_WATCHDOG_SILENT_RUN_MS: '1000', SEQFLOW_WATCHDOG_PROJECTION_LAG: '1' });
    return { code: result.code, report: JSON.parse(result.stdout) as { ok: boolean; findings: { kind: string; id: string; detail: string }[] } };
  };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('watchdog', {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'k',
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_DEFAULT_CREDITS: '100000',
      SEQFLOW_WATCHDOG_SILENT_RUN_MS: '1000',
      SEQFLOW_WATCHDOG_PROJECTION_LAG: '1',
    });
    key = await seedProject(t.runtime, { slow: [{ block: { name: 'think', processor_type: 'llm', prompt: '{{message}}' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    release();
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('finds nothing wrong in a quiet service: /health ok, doctor exits 0', async () => {
    const report = await t.runtime.watchdog.check();
    expect(report.findings).toEqual([]);
    expect(await health()).toMatchObject({ status: 'ok', watchdog: { counts: { silent_run: 0, job_over_claims: 0, delivery_over_claims: 0, projection_behind: 0, schedule_overdue: 0 } } });
    expect(await doctor()).toMatchObject({ code: 0, report: { ok: true, findings: [] } });
  });

  it('finds a sync run held in its model call with no event past the bound, and lets it go once it ends', async () => {
    model.script({ content: 'done at last', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const answer = fetch(`${base}/seq/acme/web/slow/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'think hard' }) });
    await until(() => model.requests.length > 0, 'the model call');
    // A sync run's first events linger for its next record (up to 100 ms) and may land after the model call began.
    const running = async () => {
      await t.runtime.projections.catchUp();
      return (await t.runtime.db.selectFrom('runs').select('execution_id').where('status', '=', 'running').executeTakeFirst())?.execution_id;
    };
    await until(async () => (await running()) !== undefined, 'the running run in the read model');
    const executionId = (await running())!;
    await until(async () => (await t.runtime.watchdog.check()).findings.some((f) => f.kind === 'silent_run' && f.id === executionId), 'the watchdog to find the silent run', 20_000);
    expect(await health()).toMatchObject({ status: 'degraded', watchdog: { counts: { silent_run: 1 } } });
    expect(await t.runtime.metrics.registry.metrics()).toMatch(/seqflow_watchdog_findings\{kind="silent_run"\} 1/);
    const found = await doctor();
    expect(found.code).toBe(1);
    expect(found.report.findings).toContainEqual(expect.objectContaining({ kind: 'silent_run', id: executionId }));

    release();
    expect((await answer).status).toBe(200);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.watchdog.check()).findings).toEqual([]);
  });

  it('finds a projection behind the log, and clears once it catches up', async () => {
    // A run the projections have not read yet: every projection is behind by its events.
    expect((await fetch(`${base}/seq/acme/web/slow/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'quick' }) })).status).toBe(200);
    const behind = await t.runtime.watchdog.check();
    expect(behind.findings.filter((f) => f.kind === 'projection_behind').length).toBeGreaterThan(0);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.watchdog.check()).counts.projection_behind).toBe(0);
  });

  it('finds a schedule no worker fired (no worker runs here), and clears once it is paused', async () => {
    const flowId = (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'slow').executeTakeFirstOrThrow()).id;
    const { organization_id: organizationId, project_id: projectId } = await t.runtime.db.selectFrom('flows').select(['organization_id', 'project_id']).where('id', '=', flowId).executeTakeFirstOrThrow();
    // Added two hours ago, hourly: its firing of an hour ago is still waiting.
    const scheduleId = randomUUID();
    const firstAfter = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const data = { scheduleId, organizationId, projectId, flowId, cron: '30 * * * *', timezone: 'UTC', input: { message: 'hourly', parameters: {}, attachments: [] }, callbackUrl: null, callbackEvents: [], missed: 'run' as const, firstAfter };
    await handleCommand(t.runtime.commands, scheduleStream(scheduleId), schedule, { type: 'AddSchedule', data }, testPrincipal);
    await t.runtime.projections.catchUp();
    const report = await t.runtime.watchdog.check();
    expect(report.findings).toContainEqual(expect.objectContaining({ kind: 'schedule_overdue', id: scheduleId, detail: expect.stringMatching(/s late \(bound 60 s\): no worker fired it$/) }));
    expect(await health()).toMatchObject({ status: 'degraded', watchdog: { counts: { schedule_overdue: 1 } } });
    expect(await doctor()).toMatchObject({ code: 1, report: { ok: false, findings: [expect.objectContaining({ kind: 'schedule_overdue', id: scheduleId })] } });
    await changeSchedule(t.runtime, scheduleId, 'pause', testPrincipal);
    await t.runtime.projections.catchUp();
    expect((await t.runtime.watchdog.check()).counts.schedule_overdue).toBe(0);
  });
});
