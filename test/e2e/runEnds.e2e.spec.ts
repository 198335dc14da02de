import type { FastifyInstance } from 'fastify';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentOwnRunSweep } from '../../src/runs/silentOwnRuns.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const flows: Record<string, unknown[]> = {
  // A NUL and half an emoji in what a code block throws: text the log cannot store as it is.
  nul: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("bad\\u0000byte");' } }],
  surrogate: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("half an emoji: \\ud83d");' } }],
  // Its end is refused by the database (a trigger stands in for a full disk or a broken page).
  poisoned: [{ block: { name: 'answer', processor_type: 'code', code: 'return { poison: true };' } }],
  ok: [{ block: { name: 'answer', processor_type: 'code', code: 'return { fine: true };' } }],
  // Busy long enough that its request is in the log before its end is written.
  doomed: [{ block: { name: 'answer', processor_type: 'code', code: 'let x = 0; for (let i = 0; i < 1e7; i++) x += i; return { x };' } }],
};

interface Answer {
  status?: string;
  executionId?: string;
  detail?: { code: string; message: string; executionId?: string };
}

/** Every run ends while its process lives: its end is recorded, or a fixed-size failure in its place. */
describe('runs end whatever their end holds, and when the log refuses it', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> };
  let runOfFlow: (slug: string) => Promise<RawBuilder<unknown>>;

  const post = async (flow: string, path: 'execute' | 'jobs') => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const poll = async (flow: string, executionId: string) =>
    (await (await fetch(`${base}/seq/acme/web/${flow}/jobs/${executionId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; errorCode?: string; errorMessage?: string };
  const lastEvent = async (executionId: string) => (await t.runtime.eventStore.readStream(`execution-${executionId}`)).at(-1)!;

  beforeAll(async () => {
    t = await createTestRuntime('run_ends');
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    // Runs are told apart by their flow: what they hold is sealed in the log, their flow id is not.
    const ofFlow = async (slug: string) => (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
    runOfFlow = async (slug: string) => sql`EXISTS (SELECT 1 FROM seqflow_events e WHERE e.stream_id = NEW.stream_id AND e.stream_revision = 0 AND e.data->>'flowId' = ${sql.lit(await ofFlow(slug))})`;
    await sql`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event_type = 'ExecutionCompleted' AND ${await runOfFlow('poisoned')} THEN
          RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100';
        END IF;
        RETURN NEW;
      END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER refuse_poison BEFORE INSERT ON seqflow_events FOR EACH ROW EXECUTE FUNCTION refuse_poison()`.execute(t.runtime.db);
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
  });

  it.each([
    ['nul', 'bad\ufffdbyte'],
    ['surrogate', 'half an emoji: \ufffd'],
  ])('ends a sync run whose code block throws unstorable text (%s) failed, the text made storable', async (flow, stored) => {
    const answer = await post(flow, 'execute');
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toMatchObject({ code: 'CODE_BLOCK_FAILED', message: expect.stringContaining(stored) });
    const end = await lastEvent(answer.body.detail!.executionId!);
    expect(end.type).toBe('ExecutionFailed');
    expect(end.data).toMatchObject({ message: 'code block threw', detail: expect.stringContaining(stored) });
  });

  it('ends such a job failed, where its poll sees it', async () => {
    const accepted = await post('nul', 'jobs');
    expect(accepted.status).toBe(202);
    const executionId = accepted.body.executionId!;
    await until(async () => (await poll('nul', executionId)).status === 'failed', 'the job to fail', 20_000);
    expect(await poll('nul', executionId)).toMatchObject({ errorCode: 'CODE_BLOCK_FAILED', errorMessage: expect.stringContaining('bad\ufffdbyte') });
  });

  it('records RUN_RECORD_FAILED in place of an end the database refuses: the sync caller gets the failure, the run is not left running', async () => {
    const answer = await post('poisoned', 'execute');
    expect(answer.status).toBe(500);
    expect(answer.body.detail).toMatchObject({ code: 'RUN_RECORD_FAILED', executionId: expect.any(String) });
    // Fixed-size, naming an error id rather than the database's text.
    expect(answer.body.detail!.message).not.toContain('No space left');
    const end = await lastEvent(answer.body.detail!.executionId!);
    expect(end).toMatchObject({ type: 'ExecutionFailed', data: { code: 'RUN_RECORD_FAILED', reason: 'error' } });
    await t.runtime.projections.catchUp();
    const row = await t.runtime.db.selectFrom('runs').select(['status', 'failure_code']).where('execution_id', '=', answer.body.detail!.executionId!).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', failure_code: 'RUN_RECORD_FAILED' });
  });

  it('ends such a job failed with RUN_RECORD_FAILED', async () => {
    const accepted = await post('poisoned', 'jobs');
    const executionId = accepted.body.executionId!;
    await until(async () => (await poll('poisoned', executionId)).status === 'failed', 'the job to fail', 20_000);
    expect(await poll('poisoned', executionId)).toMatchObject({ errorCode: 'RUN_RECORD_FAILED', failureReason: 'error' });
  });

  it('answers 503 DATABASE_STORAGE_FULL while the database has no room to write, says so in /health, and clears it once a write succeeds', async () => {
    const health = async () => {
      const answer = await fetch(`${base}/health`);
      return { httpStatus: answer.status, ...((await answer.json()) as { status: string; database: { ok: boolean; error?: string }; problems: { code: string }[] }) };
    };
    await sql`CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER disk_full BEFORE INSERT ON seqflow_events FOR EACH ROW EXECUTE FUNCTION disk_full()`.execute(t.runtime.db);
    try {
      const refused = await post('ok', 'execute');
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatchObject({ code: 'DATABASE_STORAGE_FULL' });
      expect(refused.body.detail!.message).not.toContain('No space left');
      // Reachable, not usable: /health says the database cannot write (issue 60 point 6; it said ok before).
      expect(await health()).toMatchObject({ httpStatus: 503, status: 'unavailable', database: { ok: false, error: 'storage_full' }, problems: [{ code: 'DATABASE_STORAGE_FULL' }] });
    } finally {
      await sql`DROP TRIGGER disk_full ON seqflow_events`.execute(t.runtime.db);
    }
    expect((await post('ok', 'execute')).status).toBe(200);
    expect(await health()).toMatchObject({ httpStatus: 200, database: { ok: true }, problems: [] });
  });

  it('ends a run whose end and its RUN_RECORD_FAILED both failed (a full disk), once the database takes writes again', async () => {
    // Every append of a `doomed` run after its request and its step's start is refused for want of room, until the test makes room.
    await sql`
      CREATE FUNCTION fill_disk() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.stream_revision > 1 AND ${await runOfFlow('doomed')} THEN
          RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100';
        END IF;
        RETURN NEW;
      END $$`.execute(t.runtime.db);
    await sql`CREATE TRIGGER fill_disk BEFORE INSERT ON seqflow_events FOR EACH ROW EXECUTE FUNCTION fill_disk()`.execute(t.runtime.db);
    const response = await fetch(`${base}/seq/acme/web/doomed/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'doomed' }) });
    const answer = (await response.json()) as Answer;
    expect([response.status, answer.detail?.code]).toEqual([503, 'DATABASE_STORAGE_FULL']);
    const executionId = answer.detail!.executionId!;
    // Its request is in the log; nothing after it is: the run is left running.
    expect((await t.runtime.eventStore.readStream(`execution-${executionId}`)).map((e) => e.type)).toEqual(['ExecutionRequested', 'ExecutionStepStarted']);

    // Room again. The silent-run sweep (its bound 1 s here) ends the run its own process left.
    await sql`DROP TRIGGER fill_disk ON seqflow_events`.execute(t.runtime.db);
    await t.runtime.projections.catchUp();
    const sweep = createSilentOwnRunSweep({ db: t.runtime.db, engine: t.runtime.execution, runner: t.runtime.execution.runner!, tracked: t.runtime.lifecycle.active, silentMs: 1000, logger: t.runtime.logger });
    await until(async () => (await sweep.sweepOnce()) === 1, 'the sweep to end the silent run', 20_000);
    expect(await lastEvent(executionId)).toMatchObject({ type: 'ExecutionFailed', data: { code: 'RUN_INTERRUPTED' } });
  });
});
