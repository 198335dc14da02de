import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firingsBetween } from '../../src/domain/schedules/cronTimes.ts';
import { firingExecutionId, scheduleStream } from '../../src/domain/schedules/scheduleEvents.ts';
import { decodeRecorded } from '../../src/eventstore/decodeRecorded.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { runCli, spawnWorker } from '../support/runProcess.ts';
import { createTestRuntime, seedProject, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * Schedules fired by real worker processes (`seqflow serve --role worker`) on one database: every
 * firing once, whichever worker gets there first, and none lost across a stop of every worker.
 */
describe('scheduled runs across worker processes', () => {
  let t: TestRuntime;
  let receiver: HttpsReceiver;
  let env: Record<string, string>;
  const workers: ChildProcess[] = [];

  const startWorker = (extra: Record<string, string> = {}) => {
    const worker = spawnWorker({ ...env, SEQFLOW_SCHEDULE_SWEEP_MS: '100', ...extra });
    workers.push(worker);
    return worker;
  };
  const killAll = () => {
    for (const worker of workers.splice(0)) signalGroup(worker, 'SIGKILL');
  };
  const cli = async (args: string[], input?: string) => {
    const result = await runCli(args, env, input);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const scheduleEvents = async (scheduleId: string) => (await t.runtime.eventStore.readStream(scheduleStream(scheduleId))).map(decodeRecorded);
  const firings = async (scheduleId: string) =>
    (await scheduleEvents(scheduleId)).flatMap((e) => (e.type === 'ScheduleFired' ? [e.data] : []));
  const databaseNow = async () => (await sql<{ at: Date }>`SELECT clock_timestamp() AS at`.execute(t.runtime.db)).rows[0]!.at;

  beforeAll(async () => {
    receiver = await startHttpsReceiver((_request, res) => res.writeHead(200).end('ok'));
    const common = { SEQFLOW_DEFAULT_CREDITS: '1000000', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_OUTBOUND_EXTRA_CA_FILE: receiver.caFile, SEQFLOW_JOB_LEASE_MS: '2000' };
    t = await createTestRuntime('schedules', common);
    await seedProject(t.runtime, { digest: [{ block: { name: 'summary', processor_type: 'code', code: 'return { digest: `digest of ${input.message}` };' } }] });
    await t.runtime.projections.catchUp();
    env = { ...common, DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), SEQFLOW_DEMO: 'false', LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    killAll();
    await receiver?.close();
    await t?.close();
  });

  // Worker processes start slowly on a loaded machine: each test waits for them up to its own bound.
  it('fires each time once with two workers racing for it: one job each, its webhook naming the schedule', { timeout: 180_000 }, async () => {
    startWorker();
    startWorker();
    const added = await cli(['schedule', 'add', '--org', 'acme', '--project', 'web', '--flow', 'digest', '--cron', '* * * * * *', '--input', '-', '--callback-url', `${receiver.url}/hook`], JSON.stringify({ message: 'the night', parameters: { team: 'support' } }));
    const scheduleId = added.scheduleId as string;
    expect(added).toMatchObject({ cron: '* * * * * *', timezone: 'UTC', missed: 'run', status: 'active', flow: { org: 'acme', project: 'web', flow: 'digest' } });

    await until(async () => (await firings(scheduleId)).length >= 6, 'six firings', 60_000);
    await cli(['schedule', 'pause', '--schedule', scheduleId]);
    // A firing a worker began before the pause is still recorded (its job started): wait until every
    // recorded firing's job has sent its webhook, then read them all.
    const delivered = (executionId: string | null) => receiver.received.some((r) => (JSON.parse(r.body) as { executionId: string }).executionId === executionId);
    await until(async () => (await firings(scheduleId)).every((f) => delivered(f.executionId)), 'a webhook for every firing', 60_000);
    const fired = await firings(scheduleId);

    // Every second from the first firing to the last, once each, in order: none twice, none left out.
    const times = fired.map((f) => f.scheduledFor);
    const first = new Date(Date.parse(times[0]!) - 1);
    expect(times).toEqual(firingsBetween({ cron: '* * * * * *', timezone: 'UTC', seed: scheduleId }, first, new Date(times.at(-1)!), 1000).times.map((d) => d.toISOString()));
    for (const f of fired) expect(f).toMatchObject({ executionId: firingExecutionId(scheduleId, f.scheduledFor), error: null });

    // One job per firing, of the production version, with the schedule's input, each completed once.
    for (const f of fired) {
      const events = await t.runtime.eventStore.readStream(`execution-${f.executionId}`);
      expect(events.filter((e) => e.type === 'ExecutionRequested')).toHaveLength(1);
      expect(decodeRecorded(events[0]!)).toMatchObject({ data: { mode: 'async', message: 'the night', parameters: { team: 'support' }, schedule: { scheduleId, scheduledFor: f.scheduledFor } } });
    }
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { executionId: string; scheduleId: string; scheduledFor: string; event: string; result: unknown });
    for (const f of fired) {
      const delivered = bodies.filter((b) => b.executionId === f.executionId);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toMatchObject({ event: 'flow.completed', scheduleId, scheduledFor: f.scheduledFor, result: { digest: 'digest of the night' } });
    }

    // The runs listing says which schedule made each run.
    await t.runtime.projections.catchUp();
    const listed = await cli(['runs', 'list', '--flow', 'digest', '--limit', '100']);
    const scheduled = (listed.items as { executionId: string; scheduleId: string | null }[]).filter((r) => r.scheduleId === scheduleId);
    expect(scheduled.map((r) => r.executionId).sort()).toEqual(fired.map((f) => f.executionId).sort());
    const schedules = await cli(['schedule', 'list', '--flow', 'digest']);
    expect(schedules.items).toEqual([expect.objectContaining({ scheduleId, status: 'paused', nextFiringAt: null, firedCount: fired.length })]);
    // Both workers lived through it: the race was theirs.
    expect(workers.map((w) => [w.exitCode, w.signalCode])).toEqual([[null, null], [null, null]]);
  });

  it('after every worker stopped across firing times: runs the missed ones late under `run`, records them skipped under `skip`', { timeout: 180_000 }, async () => {
    killAll();
    const input = JSON.stringify({ message: 'while down' });
    const common = ['schedule', 'add', '--org', 'acme', '--project', 'web', '--flow', 'digest', '--cron', '* * * * * *', '--input', '-'];
    const run = (await cli([...common, '--missed', 'run'], input)).scheduleId as string;
    const skip = (await cli([...common, '--missed', 'skip'], input)).scheduleId as string;
    const addedAt = await databaseNow();
    // Nothing runs while the firing times go by.
    await until(async () => (await databaseNow()).getTime() > addedAt.getTime() + 3_500, 'three firing times to pass');
    expect(await firings(run)).toEqual([]);

    // A firing found more than a second after its time was missed.
    startWorker({ SEQFLOW_SCHEDULE_MISSED_AFTER_MS: '1000' });
    const accounted = async (scheduleId: string) => {
      const events = await scheduleEvents(scheduleId);
      const skipped = events.flatMap((e) => (e.type === 'ScheduleFiringsSkipped' ? [e.data] : []));
      const firedAt = events.flatMap((e) => (e.type === 'ScheduleFired' ? [e.data] : []));
      return { skipped, fired: firedAt };
    };
    await until(async () => (await accounted(run)).fired.length >= 5 && (await accounted(skip)).fired.length >= 1, 'the restarted worker to catch up', 60_000);
    await cli(['schedule', 'pause', '--schedule', run]);
    await cli(['schedule', 'pause', '--schedule', skip]);

    const ran = await accounted(run);
    expect(ran.skipped).toEqual([]);
    expect(ran.fired.filter((f) => f.late).length).toBeGreaterThanOrEqual(2);
    const skipped = await accounted(skip);
    // The firings of the stop, at least; a loaded machine may make a later sweep late enough to skip more.
    expect(skipped.skipped.length).toBeGreaterThanOrEqual(1);
    expect(skipped.skipped.every((s) => s.reason === 'missed')).toBe(true);
    expect(skipped.skipped[0]!.count).toBeGreaterThanOrEqual(2);
    expect(skipped.fired.every((f) => !f.late)).toBe(true);

    // Both account for every due time exactly once, from the moment they were added.
    for (const [scheduleId, { fired, skipped: skips }] of [[run, ran], [skip, skipped]] as const) {
      const firstAfter = (await scheduleEvents(scheduleId)).find((e) => e.type === 'ScheduleAdded')!.data as { firstAfter: string };
      const last = fired.at(-1)!.scheduledFor;
      const due = firingsBetween({ cron: '* * * * * *', timezone: 'UTC', seed: scheduleId }, new Date(firstAfter.firstAfter), new Date(last), 1000).times.map((d) => d.toISOString());
      const skippedTimes = skips.flatMap((s) => firingsBetween({ cron: '* * * * * *', timezone: 'UTC', seed: scheduleId }, new Date(Date.parse(s.first) - 1), new Date(s.last), 1000).times.map((d) => d.toISOString()));
      expect([...skippedTimes, ...fired.map((f) => f.scheduledFor)].sort()).toEqual(due);
    }
  });
});
