import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { exportRun } from '../../src/audit/runExport.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { executionStream } from '../../src/domain/execution/executionEvents.ts';
import { runCli } from '../support/runProcess.ts';
import { tablesHolding as scanTables } from '../support/plaintextScan.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { selectRuns } from '../../src/backtests/runSelection.ts';
import { matchedValueHash } from '../../src/security/erasureMatch.ts';
import { startBacktest } from '../../src/backtests/backtestRunner.ts';
import { testCaseFromRun } from '../../src/backtests/testCaseFromRun.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { eraseRunClosure } from '../../src/execution/eraseRunClosure.ts';

interface Answer {
  status: number;
  body: Record<string, unknown> & { detail?: { code: string; message: string } };
}

/**
 * Issue 39 point 2: a run's personal data is sealed under its own key in the log, and erasing the run
 * removes the key: the content is gone from every table, while every verification still passes.
 */
describe("erasing a run's personal data (crypto-shredding)", () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const answer = await fetch(`${base}/seq/acme/web/${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as Answer['body'] };
  };
  const execute = async (message: string, parameters: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const answer = await call('POST', 'pipeline/execute', { message, parameters }, headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.executionId as string;
  };

  const tablesHolding = (text: string) => scanTables(t.runtime.db, text);

  beforeAll(async () => {
    t = await createTestRuntime('erasure');
    key = await seedProject(t.runtime, {
      pipeline: [{ block: { name: 'first', processor_type: 'passthrough' } }, { block: { name: 'second', processor_type: 'passthrough' } }],
    });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('keeps a run readable but sealed in the log, and after DELETE .../data keeps no plaintext anywhere while the log, the export and the read models still verify', async () => {
    const marker = `pii-${randomUUID()}`;
    const executionId = await execute(`my email is ${marker}@example.com`, { customer_id: marker }, { 'idempotency-key': `erase-${marker}` });
    await t.runtime.projections.catchUp();
    // Sealed at rest: the log stores no plaintext, yet every reader sees the run as it was.
    const stored = await sql<{ data: string }>`SELECT data::text AS data FROM seqflow_events WHERE stream_id = ${executionStream(executionId)}`.execute(t.runtime.db);
    expect(stored.rows.length).toBeGreaterThan(3);
    expect(stored.rows.map((r) => r.data).join('\n')).not.toContain(marker);
    const before = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(before[0]).toMatchObject({ type: 'ExecutionRequested', data: { message: `my email is ${marker}@example.com`, parameters: { customer_id: marker } } });

    const erased = await call('DELETE', `pipeline/runs/${executionId}/data?reason=${encodeURIComponent('GDPR request #7')}`);
    expect(erased).toMatchObject({ status: 200, body: { executionId, erasedNow: true, erasedAt: expect.any(String) } });
    // Again: the first erasure stands.
    expect(await call('DELETE', `pipeline/runs/${executionId}/data`)).toMatchObject({ status: 200, body: { executionId, erasedNow: false, erasedAt: erased.body.erasedAt } });
    await t.runtime.projections.catchUp();

    expect(await tablesHolding(marker)).toEqual([]);
    const after = await t.runtime.eventStore.readStream(executionStream(executionId));
    expect(after[0]).toMatchObject({ data: { message: null, parameters: {} }, erasedFields: ['message', 'parameters', 'attachments', 'tools'] });
    expect(after.at(-1)).toMatchObject({ type: 'RunDataErased', data: { executionId, trigger: 'request', reason: 'GDPR request #7' }, metadata: { principal: { kind: 'apiKey' } } });
    // What the run did stays: its statuses and steps, each step's start with its time (an event of its
    // own, or told by the step's completion: joinedStepStarts.ts), its input erased.
    expect(after.map((e) => e.type)).toEqual(expect.arrayContaining(['ExecutionStepCompleted', 'ExecutionCompleted']));
    const completions = after.filter((e) => e.type === 'ExecutionStepCompleted');
    const starts = after.filter((e) => e.type === 'ExecutionStepStarted' || (e.type === 'ExecutionStepCompleted' && (e.data as { started?: unknown }).started !== undefined));
    expect(starts).toHaveLength(completions.length);
    for (const start of starts) {
      if (start.type === 'ExecutionStepStarted') expect(start).toMatchObject({ data: { input: null, processorType: expect.any(String) }, erasedFields: ['input'] });
      else expect(start).toMatchObject({ data: { input: null, started: { at: expect.any(String), processorType: expect.any(String) } }, erasedFields: expect.arrayContaining(['input', 'output']) });
    }

    const verified = await verifyLog(t.runtime.eventStore);
    expect(verified.problem).toBeNull();
    expect(verified.erasedRuns.runs).toContainEqual({ executionId, erasedAt: erased.body.erasedAt, trigger: 'request', reason: 'GDPR request #7', field: null });
    expect(await verifyLog(t.runtime.eventStore, { streamId: executionStream(executionId) })).toMatchObject({ problem: null, erasedRuns: { count: 1 } });
    const lines = await exportRun(t.runtime, executionId);
    expect(verifyExport(`${lines.join('\n')}\n`)).toEqual({ ok: true, lines: lines.length, failure: null });
    expect(JSON.parse(lines[0]!)).toMatchObject({ dataKey: null, dataErasedAt: erased.body.erasedAt });
    // Erased runs are not run again: no rerun, no backtest picks them.
    await expect(t.runtime.runs.rerun(executionId, testPrincipal)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('erased') });
    const flowId = (after[0]!.data as { flowId: string }).flowId;
    await expect(selectRuns(t.runtime.db, flowId, { kind: 'executions', executionIds: [executionId] }, false)).rejects.toMatchObject({ code: 'BACKTEST_NO_RUNS' });
    expect(await selectRuns(t.runtime.db, flowId, { kind: 'last', count: 50 }, false)).not.toContain(executionId);
    const listed = await call('GET', 'pipeline/runs?limit=100');
    expect((listed.body.items as { executionId: string; dataErasedAt: string | null }[]).find((r) => r.executionId === executionId)).toMatchObject({ dataErasedAt: erased.body.erasedAt });
  });

  it('erases only runs that ended, of the caller’s own flow, and answers a run it does not know 404', async () => {
    expect(await call('DELETE', `pipeline/runs/${randomUUID()}/data`)).toMatchObject({ status: 404, body: { detail: { code: 'EXECUTION_NOT_FOUND' } } });
    expect(await call('DELETE', `pipeline/runs/x/data?surprise=1`)).toMatchObject({ status: 422, body: { detail: { code: 'VALIDATION_FAILED' } } });
    // An id that cannot name a run is a path that does not exist, never a 500 (issue 60 point 6).
    expect(await call('DELETE', 'pipeline/runs//data')).toMatchObject({ status: 404, body: { detail: { code: 'ROUTE_NOT_FOUND', message: expect.stringContaining('executionId') } } });
    expect(await call('GET', 'pipeline/jobs/')).toMatchObject({ status: 404 });
    // A run that has not ended (a job no runner took) would go on writing: refused.
    const queued = await call('POST', 'pipeline/jobs', { message: 'later' });
    expect(queued.status).toBe(202);
    expect(await call('DELETE', `pipeline/runs/${String(queued.body.executionId)}/data`)).toMatchObject({ status: 409, body: { detail: { code: 'CONFLICT', message: expect.stringContaining('only a run that has ended can be erased') } } });
    const kept = `kept-${randomUUID()}`;
    const executionId = await execute(kept, {});
    await t.runtime.projections.catchUp();
    expect(await tablesHolding(kept)).toEqual([]); // sealed from the start: the read models hold no input either
    expect((await t.runtime.eventStore.readStream(executionStream(executionId)))[0]!.data).toMatchObject({ message: kept });
  });

  it('erases by content from the CLI: a dry run lists the runs, the erasure names each, and others stay readable', async () => {
    const customer = `cust-${randomUUID()}`;
    const mine = [await execute('one', { customer_id: customer }), await execute('two', { customer_id: customer, nested: { a: 1 } })];
    const other = await execute('three', { customer_id: `${customer}-not` });
    await t.runtime.projections.catchUp();
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
    const dry = await runCli(['runs', 'erase', '--org', 'acme', '--where', `input.parameters.customer_id=${customer}`, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { matched: { executionId: string }[] }).matched.map((r) => r.executionId).sort()).toEqual([...mine].sort());
    expect(await tablesHolding(customer)).toEqual([]);
    expect((await t.runtime.eventStore.readStream(executionStream(mine[0]!)))[0]!.erasedFields).toBeUndefined();

    const done = await runCli(['runs', 'erase', '--org', 'acme', '--where', `input.parameters.customer_id=${customer}`, '--reason', 'ticket 12'], env);
    expect(done.code, done.stderr).toBe(0);
    const report = JSON.parse(done.stdout) as { erased: { executionId: string; erasedNow: boolean }[]; notErased: unknown[] };
    expect(report.erased.map((r) => r.executionId).sort()).toEqual([...mine].sort());
    expect(report.notErased).toEqual([]);
    // The log keeps the operator's reason and which field matched, with a salted hash of the value: never the value (issue 60 point 3).
    const erasures = await Promise.all(mine.map(async (id) => (await t.runtime.eventStore.readStream(executionStream(id))).at(-1)!));
    for (const erasure of erasures) {
      expect(erasure).toMatchObject({ type: 'RunDataErased', data: { reason: 'ticket 12', match: { field: 'input.parameters.customer_id', salt: expect.any(String), valueHash: expect.stringMatching(/^[a-f0-9]{64}$/) } }, metadata: { principal: { kind: 'cli' } } });
      const { salt, valueHash } = (erasure.data as { match: { salt: string; valueHash: string } }).match;
      expect(valueHash).toBe(matchedValueHash(salt, customer));
      expect(valueHash).not.toBe(matchedValueHash(salt, `${customer}-not`));
    }
    // One command, one salt: its erasures read as one request.
    expect(new Set(erasures.map((e) => (e.data as { match: { salt: string } }).match.salt)).size).toBe(1);
    expect(await tablesHolding(customer)).toEqual([]);
    const stored = await sql<{ data: string }>`SELECT data::text AS data FROM seqflow_events WHERE event_type = 'RunDataErased'`.execute(t.runtime.db);
    expect(stored.rows.map((r) => r.data).join('\n')).not.toContain(customer);
    // `audit verify-log` tells the auditor what it found erased: how many runs, and each with when, how and why (issue 60 point 5).
    const audit = await runCli(['audit', 'verify-log'], env);
    expect(audit.code, audit.stderr).toBe(0);
    const found = JSON.parse(audit.stdout) as { ok: boolean; erasedRuns: { count: number; runs: { executionId: string; trigger: string; reason: string; field: string | null }[] } };
    expect(found.ok).toBe(true);
    expect(found.erasedRuns.count).toBeGreaterThanOrEqual(mine.length);
    for (const id of mine) expect(found.erasedRuns.runs).toContainEqual({ executionId: id, erasedAt: expect.any(String), trigger: 'request', reason: 'ticket 12', field: 'input.parameters.customer_id' });
    expect(audit.stdout).not.toContain(customer);
    expect((await t.runtime.eventStore.readStream(executionStream(other)))[0]!.data).toMatchObject({ parameters: { customer_id: `${customer}-not` } });
    // `seqflow runs list` shows them, newest first, marked erased; a filter it cannot read is refused.
    const listed = await runCli(['runs', 'list', '--org', 'acme', '--flow', 'pipeline', '--status', 'completed', '--limit', '3'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout) as { items: { executionId: string; dataErasedAt: string | null; status: string }[]; nextCursor: string | null };
    expect(page.items.map((r) => r.executionId)).toEqual([other, mine[1], mine[0]]);
    expect(page.items.map((r) => r.dataErasedAt === null)).toEqual([true, false, false]);
    expect(page.nextCursor).not.toBeNull();
    const wrongStatus = await runCli(['runs', 'list', '--status', 'done'], env);
    expect([wrongStatus.code, wrongStatus.stderr]).toEqual([1, expect.stringContaining("--status takes queued, running")]);
    const bad = await runCli(['runs', 'erase', '--org', 'acme', '--where', 'output.x=1'], env);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('--where must be input.message=<text> or input.parameters.<key>=<value>')]);
  });

  it('erases a run with what was derived from it in one command: its rerun, its backtest replay, the test run of a case made from it; the case is kept and named (issue 60 point 3)', async () => {
    const marker = `pii-${randomUUID()}`;
    const original = await execute(`hello ${marker}`, { customer: marker });
    await t.runtime.projections.catchUp();
    const rerun = await t.runtime.runs.rerun(original, testPrincipal);
    const flowId = ((await t.runtime.eventStore.readStream(executionStream(original)))[0]!.data as { flowId: string }).flowId;
    const replay = (await (await startBacktest(t.runtime.execution, {}, { flowId, draft: true, selection: { kind: 'executions', executionIds: [original] } }, testPrincipal)).run()).runs[0]!.backtestExecutionId;
    const testCase = await testCaseFromRun(t.runtime.commands, {}, { executionId: original, name: 'from the customer run' }, testPrincipal);
    await t.runtime.projections.catchUp();
    const testRun = await runTestCase(t.runtime.execution, {}, { testCaseId: testCase.testCaseId, draft: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    const copies = [rerun.executionId, replay, testRun.executionId];
    for (const id of copies) expect(JSON.stringify((await t.runtime.eventStore.readStream(executionStream(id)))[0]!.data)).toContain(marker);

    const erased = await call('DELETE', `pipeline/runs/${original}/data?reason=ticket%2044`);
    expect(erased).toMatchObject({ status: 200, body: { executionId: original, erasedNow: true } });
    expect((erased.body.derived as { executionId: string; derivation: string; erasedNow: boolean }[]).map((d) => [d.executionId, d.derivation, d.erasedNow]).sort()).toEqual(
      [[rerun.executionId, 'rerun', true], [replay, 'backtest_replay', true], [testRun.executionId, 'test_run', true]].sort(),
    );
    expect(erased.body.testCasesKept).toEqual([{ testCaseId: testCase.testCaseId, name: 'from the customer run', from: original }]);
    await t.runtime.projections.catchUp();
    for (const id of copies) expect((await t.runtime.eventStore.readStream(executionStream(id)))[0]).toMatchObject({ data: { message: null, parameters: {} } });
    // What is left holding the marker is the test case's own copy, the one documented exception: its events and its row.
    expect(await tablesHolding(marker)).toEqual(['seqflow_events', 'test_cases']);
    const holding = await sql<{ stream_id: string }>`SELECT DISTINCT stream_id FROM seqflow_events WHERE data::text LIKE ${`%${marker}%`}`.execute(t.runtime.db);
    expect(holding.rows.map((r) => r.stream_id)).toEqual([`testcase-${testCase.testCaseId}`]);
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it('refuses to erase a run while a run derived from it has not ended, erasing nothing, and names it', async () => {
    const original = await execute(`wait ${randomUUID()}`, {});
    await t.runtime.projections.catchUp();
    // A rerun that is still running, as the read models show it.
    const rerun = await t.runtime.runs.rerun(original, testPrincipal);
    await t.runtime.projections.catchUp();
    await t.runtime.db.updateTable('runs').set({ status: 'running', ended_at: null }).where('execution_id', '=', rerun.executionId).execute();
    const refused = await call('DELETE', `pipeline/runs/${original}/data`);
    expect(refused).toMatchObject({ status: 409, body: { detail: { code: 'CONFLICT', message: expect.stringContaining(`${rerun.executionId} (rerun, running)`) } } });
    expect((await t.runtime.eventStore.readStream(executionStream(original))).some((e) => e.type === 'RunDataErased')).toBe(false);
    await t.runtime.db.updateTable('runs').set({ status: 'completed', ended_at: new Date().toISOString() }).where('execution_id', '=', rerun.executionId).execute();
  });

  it('erases with the run a test run started a moment ago, from a test case made from it, that the read models do not show yet', async () => {
    const marker = `m${randomUUID().replaceAll('-', '')}`;
    const original = await execute(`case ${marker}`, { customer: marker });
    await t.runtime.projections.catchUp();
    const testCase = await testCaseFromRun(t.runtime.commands, {}, { executionId: original, name: `case of ${marker}` }, testPrincipal);
    await t.runtime.projections.catchUp();
    const testRun = await runTestCase(t.runtime.execution, {}, { testCaseId: testCase.testCaseId, draft: true }, testPrincipal);
    // In the log, not in the read models yet: the erasure catches them up before it reads the closure.
    expect(await t.runtime.db.selectFrom('test_runs').select('execution_id').where('execution_id', '=', testRun.executionId).execute()).toEqual([]);
    const erased = await call('DELETE', `pipeline/runs/${original}/data`);
    expect(erased).toMatchObject({ status: 200, body: { erasedNow: true, derived: [expect.objectContaining({ executionId: testRun.executionId, derivation: 'test_run', erasedNow: true })] } });
    expect((await t.runtime.eventStore.readStream(executionStream(testRun.executionId)))[0]).toMatchObject({ data: { message: null, parameters: {} } });
  });

  it('refuses to erase a run rerun after the erasure caught the read models up, until they show the rerun, and then erases both', async () => {
    const original = await execute(`again ${randomUUID()}`, {});
    await t.runtime.projections.catchUp();
    let rerun: string | undefined;
    // The rerun starts between the read models' catching up and the closure's reading them: the log links it, so it would be left out.
    const rerunAfterCatchingUp = async () => {
      await t.runtime.readModelsCurrent();
      rerun ??= (await t.runtime.runs.rerun(original, testPrincipal)).executionId;
    };
    const erasing = { ...t.runtime.commands, runDataKeys: t.runtime.runDataKeys, db: t.runtime.db, readModelsCurrent: rerunAfterCatchingUp };
    const refused = await eraseRunClosure(erasing, { executionId: original, reason: 'ticket 45' }, testPrincipal).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`rerun as ${rerun!}`) });
    expect((await t.runtime.eventStore.readStream(executionStream(original))).some((e) => e.type === 'RunDataErased')).toBe(false);
    const erased = await call('DELETE', `pipeline/runs/${original}/data`);
    expect(erased).toMatchObject({ status: 200, body: { erasedNow: true, derived: [expect.objectContaining({ executionId: rerun, derivation: 'rerun', erasedNow: true })] } });
  });

  it('property: after erasing any subset of random runs, every verification passes and nothing of an erased run remains in any table', async () => {
    const hostile = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('😀'.repeat(5), 'שלום עולם', 'e\u0301\u0301', '"quoted" \\ back'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ text: hostile, erase: fc.boolean() }), { minLength: 1, maxLength: 4 }), async (runs) => {
        const made = [];
        for (const run of runs) {
          const marker = `m${randomUUID().replaceAll('-', '')}`;
          made.push({ ...run, marker, executionId: await execute(`${marker} ${run.text}`, { note: `${marker}${run.text}` }) });
        }
        for (const run of made.filter((r) => r.erase)) expect((await call('DELETE', `pipeline/runs/${run.executionId}/data`)).status).toBe(200);
        await t.runtime.projections.catchUp();
        expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
        for (const run of made) {
          expect(await tablesHolding(run.marker)).toEqual([]);
          const first = (await t.runtime.eventStore.readStream(executionStream(run.executionId)))[0]!;
          expect(first.data).toMatchObject(run.erase ? { message: null, parameters: {} } : { message: `${run.marker} ${run.text}`, parameters: { note: `${run.marker}${run.text}` } });
          expect(verifyExport(`${(await exportRun(t.runtime, run.executionId)).join('\n')}\n`)).toMatchObject({ ok: true });
        }
      }),
      { numRuns: 6 },
    );
  });
});
