import { spawn } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { addTestCase } from '../../src/testing/testCases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { ROOT, TSX, spawnServe } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { openSse, type SseFrame } from '../support/sseClient.ts';
import { createTestRuntime, freePort, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/**
 * Process A (`seqflow serve`, its own process group) runs a sync run and a /step run, each waiting
 * for the model; it is killed with SIGKILL. Process B (this test's runtime, API and workers) follows
 * the step run. Nobody can finish those runs: B's sweep finds their runner's lease expired and
 * records them failed, and B's follower receives the failure and its stream ends.
 */
describe('runs whose process is killed mid-run (kill -9)', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let workers: { stop(): Promise<void> };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.respond = () => ({ content: 'too late', delayMs: 120_000 });
    const env = { SEQFLOW_DEFAULT_CREDITS: '1000000', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_RUNNER_LEASE_MS: '1000' };
    t = await createTestRuntime('interrupted', env);
    key = await seedProject(t.runtime, { slow: [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }] });
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));
    workers = await startWorkers(t.runtime);
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('records both runs failed with RUN_INTERRUPTED; a follower elsewhere receives the failure and its stream ends', async () => {
    const port = await freePort();
    const a = spawnServe({ DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_RUNNER_LEASE_MS: '1000', PORT: String(port) });
    const baseA = `http://127.0.0.1:${port}/api/v1`;
    await until(() => fetch(`${baseA}/health`).then((r) => r.ok, () => false), `process A to answer (${a.output()})`);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    // The sync run's caller loses its connection when A dies: that is expected.
    const syncCall = fetch(`${baseA}/seq/acme/web/slow/execute`, { method: 'POST', headers, body: '{"message":"sync"}' }).catch(() => undefined);
    const stepOnA = await openSse(`${baseA}/seq/acme/web/slow/step`, { method: 'POST', headers, body: '{"message":"step"}' });
    const started = (await stepOnA.next())!;
    expect(started.event).toBe('started');
    const stepId = (started.data as { executionId: string }).executionId;

    const runs = async () => {
      const response = await fetch(`${base}/seq/acme/web/slow/runs`, { headers });
      return ((await response.json()) as { items: { executionId: string; mode: string; status: string; failureCode: string | null }[] }).items;
    };
    await until(async () => (await runs()).filter((run) => run.status === 'running').length === 2, 'both runs to be running');
    await until(async () => model.requests.length >= 2, 'both runs to call the model');
    const syncId = (await runs()).find((run) => run.mode === 'sync')!.executionId;

    const follower = await openSse(`${base}/seq/acme/web/slow/step/${stepId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(follower.status).toBe(200);

    process.kill(-a.child.pid!, 'SIGKILL');
    await a.exited;
    stepOnA.close();
    await syncCall;

    const frames: SseFrame[] = await follower.rest();
    expect(frames.filter((frame) => frame.event).at(-1)).toEqual(
      expect.objectContaining({ event: 'failed', data: expect.objectContaining({ executionId: stepId, code: 'RUN_INTERRUPTED', failureReason: 'error' }) }),
    );
    await until(async () => (await runs()).every((run) => run.status === 'failed'), 'the listing to show both runs failed');
    expect((await runs()).map((run) => [run.executionId, run.status, run.failureCode]).sort()).toEqual(
      [
        [stepId, 'failed', 'RUN_INTERRUPTED'],
        [syncId, 'failed', 'RUN_INTERRUPTED'],
      ].sort(),
    );
  });

  it('finishes the test run of a test case whose CLI process was killed, failed with RUN_INTERRUPTED', async () => {
    const flow = await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'slow').executeTakeFirstOrThrow();
    const testCase = await addTestCase(t.runtime.commands, {}, { flowId: flow.id, definition: { name: 'waits', input: { message: 'test' }, assertions: [{ type: 'contains', value: 'x' }] } }, testPrincipal);
    const calls = model.requests.length;
    const cli = spawn(TSX, ['src/cli/main.ts', 'test', 'run', '--case', testCase.testCaseId], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_RUNNER_LEASE_MS: '1000', LOG_LEVEL: 'warn' },
    });
    let output = '';
    cli.stdout!.on('data', (chunk) => (output += chunk));
    cli.stderr!.on('data', (chunk) => (output += chunk));
    let exitCode: number | null | undefined;
    const exited = new Promise((resolve) => cli.on('exit', (code) => resolve((exitCode = code))));
    await until(async () => {
      if (exitCode !== undefined) throw new Error(`the CLI exited (${exitCode}) before calling the model: ${output}`);
      return model.requests.length > calls;
    }, 'the test run to call the model');
    process.kill(-cli.pid!, 'SIGKILL');
    await exited;

    const testRun = () => t.runtime.db.selectFrom('test_runs').selectAll().where('test_case_id', '=', testCase.testCaseId).executeTakeFirst();
    await until(async () => (await testRun())?.finished_at != null, 'the test run to be recorded finished').catch(async (error: Error) => {
      // What the sweep saw, for a failure that says why (it failed once on a loaded CI machine and never since).
      const run = await t.runtime.db.selectFrom('runs').select(['execution_id', 'status', 'mode', 'runner', 'test_run_id']).where('mode', '=', 'test').execute();
      const leases = await t.runtime.db.selectFrom('runner_leases').selectAll().execute();
      throw new Error(`${error.message}; test run ${JSON.stringify(await testRun())}; test-mode runs ${JSON.stringify(run)}; runner leases ${JSON.stringify(leases)}; CLI output: ${output.slice(-2000)}`);
    });
    expect(await testRun()).toMatchObject({ passed: false });
    const finished = (await t.runtime.eventStore.readStream(`testrun-${(await testRun())!.id}`)).at(-1)!;
    expect(finished).toMatchObject({ type: 'TestRunFinished', data: { runStatus: 'failed', passed: false, error: { code: 'RUN_INTERRUPTED' } } });

    // The dead processes' leases are gone: the table holds the live runner only.
    const runners = async () => (await t.runtime.db.selectFrom('runner_leases').select('runner_id').execute()).map((row) => row.runner_id);
    await until(async () => (await runners()).length === 1, 'the dead runners\' leases to be deleted');
    expect(await runners()).toEqual([t.runtime.execution.runner]);
  });
});
