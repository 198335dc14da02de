import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareExecution } from '../../src/execution/flowEngine.ts';
import { ROOT, TSX, spawnWorker } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';
import { logRows, reportFigures } from './faultFigures.ts';
import { signalGroup } from '../support/signalGroup.ts';

const steps = [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }];

describe('kill -9 of the process running a backtest', () => {
  let t: TestRuntime;
  let model: ScriptedModelServer;
  let env: Record<string, string>;
  let release: () => void = () => undefined;
  const children: ChildProcess[] = [];

  const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.on('exit', resolve)));
  const kill = async (child: ChildProcess) => {
    signalGroup(child, 'SIGKILL');
    await exited(child);
  };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    const settings = { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000', SEQFLOW_LLM_MAX_RETRIES: '0', SEQFLOW_RUNNER_LEASE_MS: '600' };
    t = await createTestRuntime('fault_backtest', settings);
    env = { ...settings, ...t.database.service.env, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64') };
    await seedProject(t.runtime, { f: steps });
    await t.runtime.projections.catchUp();
    // Three production runs recorded, as /execute records them.
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: 'f' }, project.id);
    model.respond = () => ({ content: 'recorded answer' });
    for (const message of ['one', 'two', 'three']) {
      const prepared = await prepareExecution(t.runtime.execution, { executionId: randomUUID(), ...flow, message, parameters: {}, attachments: [], tools: undefined, mode: 'sync', apiKeyId: null, principal: testPrincipal.principal });
      await prepared.start();
    }
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    release();
    for (const child of children) await kill(child);
    await model?.close();
    await t?.close();
  });

  it('while a replay waits for its model: a worker finishes the backtest interrupted (what was compared kept) and the replay RUN_INTERRUPTED', async () => {
    // The first replay is answered; the second is held until after the kill.
    const held = new Promise<void>((resolve) => (release = resolve));
    let replays = 0;
    model.respond = () => (++replays === 1 ? { content: 'recorded answer' } : { content: 'recorded answer', heldUntil: held });
    const backtest = spawn(TSX, ['src/cli/main.ts', 'backtest', '--flow', 'f', '--version', '1', '--last', '3', '--concurrency', '1'], { cwd: ROOT, detached: true, stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    children.push(backtest);
    await until(async () => (await logRows(t.database.url, `event_type = 'BacktestRunCompared'`)).length === 1 && replays === 2, 'the backtest to compare one run and hold the next one at its model', 60_000);
    const [started] = await logRows(t.database.url, `event_type = 'BacktestStarted'`);
    const backtestId = started!.data.backtestId as string;
    await kill(backtest);
    const killedAt = Date.now();

    const worker = spawnWorker({ ...env, SEQFLOW_WORKER_ID: `sweeper-${randomUUID().slice(0, 8)}` });
    children.push(worker);
    await until(async () => (await logRows(t.database.url, `event_type = 'BacktestFinished'`)).length > 0, 'the worker to finish the backtest', 60_000);
    const [finished] = await logRows(t.database.url, `event_type = 'BacktestFinished'`);
    expect(finished!.stream_id).toBe(`backtest-${backtestId}`);
    expect(finished!.data).toMatchObject({ status: 'interrupted', summary: { total: 3, same: 1, notRun: 2 } });
    // The replay that was waiting for its model is ended by the run sweep, like any run whose process died.
    const held2 = (started!.data.runs as { backtestExecutionId: string }[])[1]!.backtestExecutionId;
    await until(async () => (await logRows(t.database.url, `event_type = 'ExecutionFailed' AND stream_id = $1`, [`execution-${held2}`])).length > 0, 'the held replay to be recorded interrupted', 60_000);
    const [failed] = await logRows(t.database.url, `event_type = 'ExecutionFailed' AND stream_id = $1`, [`execution-${held2}`]);
    expect(failed!.data).toMatchObject({ code: 'RUN_INTERRUPTED' });
    reportFigures('kill-9-backtest', { recoveredMs: Date.now() - killedAt });
    await kill(worker);
  }, 120_000);
});
