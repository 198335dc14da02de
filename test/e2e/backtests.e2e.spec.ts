import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { publishDraft, setBacktestGate, setProduction } from '../../src/authoring/flowAuthoring.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { replayRecord } from '../../src/audit/runAudit.ts';
import { exportRun } from '../../src/audit/runExport.ts';
import { loadRunRecord } from '../../src/audit/runRecord.ts';
import { finishInterruptedBacktests } from '../../src/backtests/interruptedBacktests.ts';
import { startBacktest } from '../../src/backtests/backtestRunner.ts';
import { backtestPage } from '../../src/queries/backtestQueries.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { runTrial } from '../../src/testing/trialRun.ts';
import { testCaseFromRun } from '../../src/backtests/testCaseFromRun.ts';
import { runCli } from '../support/runProcess.ts';
import { type RecordedRequest, type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

const gradeSchema = { type: 'object', properties: { score: { type: 'integer' }, label: { type: 'string' } }, required: ['score', 'label'] };
const flows: Record<string, unknown[]> = {
  grader: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' } },
    { block: { name: 'grade', processor_type: 'llm', prompt: 'Grade: {{previous_output.text}}', output_schema: gradeSchema } },
  ],
  agent: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Help with: {{message}}', processor_config: { tools_enabled: true } } }],
};
const localTime = { type: 'function', function: { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: {} } } };
const weather = { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

/** The last user message the model was sent (the rendered prompt). */
const promptOf = (request: RecordedRequest) => String(request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
/** How the model graded in production: the same answers again mean the same results. */
const version1 = (request: RecordedRequest) => ({ content: { score: promptOf(request).length, label: promptOf(request).includes('good') ? 'good' : 'weak' } });
const toolMessages = (request: RecordedRequest) => request.body.messages.filter((m) => m.role === 'tool') as unknown as { tool_call_id: string; content: string }[];

describe('backtests: a candidate replayed on recorded production runs, pair by pair', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let graderId: string;
  let agentId: string;
  const scope = {};
  const production: string[] = [];

  const execute = async (flow: string, body: Record<string, unknown>) => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await response.json()) as Record<string, unknown> & { executionId: string; toolCalls: { id: string; function: { name: string; arguments: string } }[]; toolCallMessages: unknown[]; pausedAtStep: string; iterationsUsed: number };
  };
  const streamOf = async (id: string) => (await t.runtime.eventStore.readStream(id)).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
  const flowIdOf = async (slug: string) => (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
  const backtest = async (input: Parameters<typeof startBacktest>[2]) => {
    const started = await startBacktest(t.runtime.execution, scope, input, testPrincipal);
    return started.run();
  };

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('backtests', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '10000000', SEQFLOW_LLM_MAX_RETRIES: '0' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
    graderId = await flowIdOf('grader');
    agentId = await flowIdOf('agent');

    // Production traffic: three essays graded by version 1.
    server.respond = version1;
    for (const message of [' a good essay ', 'a weak essay', 'another good one']) production.push((await execute('grader', { message })).executionId);
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  it('replays the last N production runs on the draft and compares each pair: same, different with the changed paths, failed', async () => {
    // The candidate: the same model answers the first essay the same, grades the second differently, and fails the third.
    server.respond = (request) => {
      const prompt = promptOf(request);
      // Every attempt at it, the repair requests too.
      if (JSON.stringify(request.body.messages).includes('another')) return { content: 'not json at all' };
      if (prompt.includes('weak')) return { content: { score: 99, label: 'weak', note: 'new field' } };
      return { content: { score: prompt.length, label: 'good' } };
    };
    const report = await backtest({ flowId: graderId, draft: true, selection: { kind: 'last', count: 3 } });

    expect(report.summary).toEqual({ total: 3, same: 1, different: 1, failed: 1, notRun: 0, erased: 0 });
    expect(report.runs.map((r) => [r.executionId, r.outcome])).toEqual([
      [production[0], 'same'],
      [production[1], 'different'],
      [production[2], 'failed'],
    ]);
    const different = report.runs[1]!;
    expect(different.diff.changes).toEqual([
      { path: 'note', kind: 'added', after: '"new field"' },
      { path: 'score', kind: 'changed', before: String('Grade: a weak essay'.length), after: '99' },
    ]);
    expect(different.original).toMatchObject({ status: 'completed', result: { label: 'weak' }, tokens: 15 });
    expect(different.candidate).toMatchObject({ status: 'completed', result: { score: 99 }, tokens: 15 });
    expect(report.runs[2]!.candidate).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });

    // Each replay is an ordinary run of mode `backtest`, charged like any run, with no webhook.
    const replay = await streamOf(`execution-${different.backtestExecutionId}`);
    expect(replay[0]).toMatchObject({ type: 'ExecutionRequested', data: { mode: 'backtest', backtestId: report.backtestId, callbackUrl: null, versionNumber: 0, message: 'a weak essay' } });
    expect(replay.map((e) => e.type)).toContain('CreditsConsumed');
    // The backtest is its own stream: started with the runs it chose, one comparison per run, finished.
    const recorded = await streamOf(`backtest-${report.backtestId}`);
    expect(recorded.map((e) => e.type)).toEqual(['BacktestStarted', 'BacktestRunCompared', 'BacktestRunCompared', 'BacktestRunCompared', 'BacktestFinished']);
    expect(recorded[0]!.data).toMatchObject({ target: { kind: 'draft' }, selection: { kind: 'last', count: 3 }, runs: production.map((executionId) => ({ executionId, backtestExecutionId: expect.any(String) })) });
    expect(recorded.at(-1)!.data).toMatchObject({ status: 'finished', summary: { same: 1, different: 1, failed: 1 } });

    // A replay of the draft is audited like any run: the draft snapshot is the backtest's, the export stands alone.
    const record = await loadRunRecord(t.runtime.eventStore, different.backtestExecutionId);
    expect(record.version?.steps.map((s) => ('block' in s ? s.block.name : ''))).toEqual(['prep', 'grade']);
    expect(replayRecord(record).divergence).toBeNull();
    expect(verifyExport(`${(await exportRun(t.runtime, different.backtestExecutionId)).join('\n')}\n`)).toMatchObject({ ok: true });

    // The read model has the pairs for the console and get_backtest.
    await t.runtime.projections.catchUp();
    const page = await backtestPage(t.runtime.db, scope, { backtestId: report.backtestId, limit: 10, onlyChanged: true });
    expect(page).toMatchObject({ status: 'finished', summary: { total: 3, same: 1, different: 1, failed: 1, compared: 3 } });
    expect(page.pairs.map((p) => p.outcome)).toEqual(['different', 'failed']);
  });

  it('never chooses test runs, backtest runs or runs named that are not production runs of the flow', async () => {
    server.respond = version1;
    const trial = await runTrial(t.runtime.execution, scope, { flowId: graderId, message: 'a trial', parameters: {}, attachments: [], target: 'production' }, testPrincipal);
    await t.runtime.projections.catchUp();
    const report = await backtest({ flowId: graderId, version: 1, selection: { kind: 'last', count: 100 } });
    expect(report.runs.map((r) => r.executionId)).toEqual(production);
    expect(report.summary.same).toBe(3);

    const refusal = await startBacktest(t.runtime.execution, scope, { flowId: graderId, version: 1, selection: { kind: 'executions', executionIds: [production[0]!, trial.executionId] } }, testPrincipal).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'BACKTEST_NO_RUNS', message: expect.stringContaining(trial.executionId) });
    const none = await startBacktest(t.runtime.execution, scope, { flowId: graderId, version: 1, selection: { kind: 'window', since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' } }, testPrincipal).catch((error: unknown) => error);
    expect(none).toMatchObject({ code: 'BACKTEST_NO_RUNS' });
  });

  it('repeats a backtest on the runs it chose, whatever production did since', async () => {
    server.respond = version1;
    const first = await backtest({ flowId: graderId, version: 1, selection: { kind: 'last', count: 2 } });
    await execute('grader', { message: 'a newer essay' });
    await t.runtime.projections.catchUp();
    const again = await backtest({ flowId: graderId, repeatOf: first.backtestId });
    expect(again.runs.map((r) => r.executionId)).toEqual(first.runs.map((r) => r.executionId));
    expect(again.target).toEqual({ kind: 'version', number: 1 });
    expect((await streamOf(`backtest-${again.backtestId}`))[0]!.data).toMatchObject({ repeatOf: first.backtestId, selection: { kind: 'last', count: 2 } });
  });

  it('replays a tool-calling run from the tool results its caller sent, without a caller, and stops a replay at a tool the original never called', async () => {
    let calledWeather = 0;
    server.respond = (request) => (toolMessages(request).length === 0 ? { toolCalls: [{ id: `call_${++calledWeather}`, name: 'get_weather', arguments: '{"city":"Oslo"}' }] } : { content: `Answer: ${toolMessages(request)[0]!.content}` });
    // It offers two tools and the model calls one: a replay that calls the other has no recorded result for it.
    const offered = [weather, localTime];
    const pause = await execute('agent', { message: 'weather in Oslo?', tools: offered });
    expect(pause.status).toBe('tool_calls_required');
    const done = await execute('agent', { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: pause.toolCalls[0]!.id, content: 'sunny, 21 C' }], tools: offered });
    expect(done).toMatchObject({ status: 'completed' });
    // The resume recorded what the caller sent, and the run the tools it declared.
    const original = await streamOf(`execution-${pause.executionId}`);
    expect(original.find((e) => e.type === 'ExecutionResumed')!.data).toMatchObject({ toolResults: [{ toolCallId: pause.toolCalls[0]!.id, name: 'get_weather', content: 'sunny, 21 C' }] });
    expect(original[0]!.data).toMatchObject({ tools: { tools: offered, toolChoice: 'auto' } });
    await t.runtime.projections.catchUp();

    server.reset();
    server.respond = (request) => (toolMessages(request).length === 0 ? { toolCalls: [{ id: 'call_new', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } : { content: `Answer: ${toolMessages(request)[0]!.content}` });
    const replayed = await backtest({ flowId: agentId, draft: true, selection: { kind: 'executions', executionIds: [pause.executionId] } });
    expect(replayed.runs[0]).toMatchObject({ outcome: 'same', candidate: { status: 'completed', result: { text: 'Answer: sunny, 21 C' } } });
    // The model saw the declared tools and, as the tool's answer, what the original caller sent.
    expect(server.requests[0]!.body.tools).toEqual(offered);
    expect(toolMessages(server.requests[1]!)).toEqual([expect.objectContaining({ tool_call_id: 'call_new', content: 'sunny, 21 C' })]);

    server.reset();
    server.respond = () => ({ toolCalls: [{ id: 'call_t', name: 'get_time', arguments: '{}' }] });
    const stopped = await backtest({ flowId: agentId, draft: true, selection: { kind: 'executions', executionIds: [pause.executionId] } });
    expect(stopped.runs[0]).toMatchObject({ outcome: 'failed', candidate: { status: 'failed', error: { code: 'TOOL_RESULT_NOT_RECORDED', message: 'the replay asked for a tool result the log does not hold' } } });
    // Which tool it was is the replay's own failure detail (sealed with its run), not the pair's words.
    expect((await streamOf(`execution-${stopped.runs[0]!.backtestExecutionId}`)).at(-1)).toMatchObject({ type: 'ExecutionFailed', data: { reason: 'cancelled', detail: expect.stringContaining('never called get_time') } });
  });

  it('turns a recorded run into a test case: its input, its tool results, an equals assertion on its result, and a link to the run', async () => {
    server.respond = (request) => (toolMessages(request).length === 0 ? { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Bergen"}' }] } : { content: `Answer: ${toolMessages(request)[0]!.content}` });
    const pause = await execute('agent', { message: 'weather in Bergen?', tools: [weather] });
    await execute('agent', { executionId: pause.executionId, pausedAtStep: pause.pausedAtStep, iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'call_1', content: 'rain' }], tools: [weather] });

    const made = await testCaseFromRun(t.runtime.commands, scope, { executionId: pause.executionId, name: 'Bergen rain' }, testPrincipal);
    expect(made).toMatchObject({ flowId: agentId, fromExecutionId: pause.executionId, warnings: [] });
    expect(made.definition).toEqual({ name: 'Bergen rain', input: { message: 'weather in Bergen?' }, tool_results: { get_weather: 'rain' }, assertions: [{ type: 'equals', value: { text: 'Answer: rain' } }] });
    expect((await streamOf(`testcase-${made.testCaseId}`))[0]!.data).toMatchObject({ fromExecutionId: pause.executionId });
    const run = await runTestCase(t.runtime.execution, scope, { testCaseId: made.testCaseId }, testPrincipal);
    expect(run).toMatchObject({ passed: true });

    const unknown = await testCaseFromRun(t.runtime.commands, scope, { executionId: '00000000-0000-0000-0000-000000000000' }, testPrincipal).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: 'EXECUTION_NOT_FOUND' });
  });

  it('runs from the CLI as the docs show: JSON with the summary and each pair, a JUnit report, and exit 1 with --fail-on-change when an answer changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-backtest-'));
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'warn' };
    server.respond = version1;
    const same = await runCli(['backtest', '--org', 'acme', '--project', 'web', '--flow', 'grader', '--version', '1', '--last', '2', '--fail-on-change'], env);
    expect(same.code, same.stderr).toBe(0);
    const report = JSON.parse(same.stdout) as { backtestId: string; target: unknown; summary: Record<string, number>; runs: { executionId: string; backtestExecutionId: string; same: boolean; original: { result: unknown } }[] };
    expect(report).toMatchObject({ target: { kind: 'version', number: 1 }, summary: { total: 2, same: 2, different: 0, failed: 0 } });
    expect(report.runs.every((r) => r.same && r.original.result !== null)).toBe(true);

    server.respond = (request) => ({ content: { score: 0, label: promptOf(request).includes('good') ? 'good' : 'weak' } });
    const junit = path.join(dir, 'backtest.xml');
    const changed = await runCli(['backtest', '--flow', 'grader', '--draft', '--execution', production[0]!, production[1]!, '--fail-on-change', '--junit', junit], env);
    expect(changed.code, changed.stderr).toBe(1);
    expect(JSON.parse(changed.stdout)).toMatchObject({ summary: { total: 2, different: 2 } });
    const xml = await readFile(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="backtest [0-9a-f-]{36} of grader \(draft\)" tests="2" failures="2"/);
    expect(xml).toMatch(/<testcase classname="grader" name="[0-9a-f-]{36}" time="[\d.]+">\s*<failure message="answer changed">changed score: \d+ -&gt; 0<\/failure>/);

    // A judge from a rubric file scores each changed answer; its verdict is in the pair.
    const rubric = path.join(dir, 'rubric.txt');
    await writeFile(rubric, 'The label must stay the same.\n');
    const grading = server.respond;
    server.respond = (request) => (JSON.stringify(request.body.messages).includes('Rubric') ? { content: { score: 0.2, rationale: 'the score moved a lot' } } : grading(request));
    const judged = await runCli(['backtest', '--flow', 'grader', '--draft', '--execution', production[0]!, '--judge', rubric], env);
    expect(judged.code, judged.stderr).toBe(0);
    expect(JSON.parse(judged.stdout).runs[0]).toMatchObject({ outcome: 'different', judge: { type: 'llm_judge', passed: false, score: 0.2, judge: { rationale: 'the score moved a lot' } } });
    const noTarget = await runCli(['backtest', '--flow', 'grader', '--last', '1'], env);
    expect([noTarget.code, noTarget.stderr]).toEqual([1, expect.stringContaining('give the candidate: --draft or --version N')]);
    const badJudge = await runCli(['backtest', '--flow', 'grader', '--draft', '--last', '1', '--judge', path.join(dir, 'missing.txt')], env);
    expect([badJudge.code, badJudge.stderr]).toEqual([1, expect.stringContaining('VALIDATION_FAILED')]);

    const again = await runCli(['backtest', '--repeat', report.backtestId, '--last', '1', '--since', '2026-01-01T00:00:00Z'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('choose the runs one way');
    const fromRun = await runCli(['test', 'from-run', '--execution', production[0]!, '--name', 'first essay'], env);
    expect(fromRun.code, fromRun.stderr).toBe(0);
    expect(JSON.parse(fromRun.stdout)).toMatchObject({ name: 'first essay', fromExecutionId: production[0], definition: { input: { message: ' a good essay ' }, assertions: [{ type: 'equals' }] } });
  });

  it('holds a version back from production until a backtest of it changed at most the share of answers the flow allows, a judged change that does not matter not counted', async () => {
    const deps = { ...t.runtime.commands, db: t.runtime.db };
    const v2 = await publishDraft(t.runtime.commands, scope, { flowId: graderId, note: 'candidate' }, testPrincipal);
    await setBacktestGate(t.runtime.commands, scope, { flowId: graderId, maxChangedPercent: 10 }, testPrincipal);
    const refused = (error: unknown) => error as { code: string; message: string };
    expect(refused(await setProduction(deps, scope, { flowId: graderId, versionId: v2.versionId }, testPrincipal).catch((e: unknown) => e))).toMatchObject({ code: 'BACKTEST_NOT_RUN', message: expect.stringContaining('seqflow backtest') });

    server.respond = (request) => (promptOf(request).includes('weak') ? { content: { score: 1, label: 'weak' } } : version1(request));
    const changed = await backtest({ flowId: graderId, version: 2, selection: { kind: 'executions', executionIds: production } });
    expect(changed.summary).toMatchObject({ total: 3, same: 2, different: 1 });
    await t.runtime.projections.catchUp();
    expect(refused(await setProduction(deps, scope, { flowId: graderId, versionId: v2.versionId }, testPrincipal).catch((e: unknown) => e))).toMatchObject({ code: 'BACKTEST_CHANGED', message: expect.stringContaining('changed 33.33%') });

    // The same change, judged: the judge scores the changed grade as not mattering, so the gate does not count it.
    const grading = server.respond;
    server.respond = (request) => (JSON.stringify(request.body.messages).includes('Rubric') ? { content: { score: 0.9, rationale: 'the label is the same' } } : grading(request));
    const judged = await backtest({ flowId: graderId, repeatOf: changed.backtestId, judge: { rubric: 'The label must not change.' } });
    expect(judged.summary).toMatchObject({ different: 1 });
    expect(judged.runs.find((r) => r.outcome === 'different')!.judge).toMatchObject({ type: 'llm_judge', passed: true, score: 0.9 });
    expect((await streamOf(`backtest-${judged.backtestId}`)).map((e) => e.type)).toContain('CreditsConsumed');
    await t.runtime.projections.catchUp();
    expect(await setProduction(deps, scope, { flowId: graderId, versionId: v2.versionId }, testPrincipal)).toMatchObject({ versionId: v2.versionId });
    await setBacktestGate(t.runtime.commands, scope, { flowId: graderId, maxChangedPercent: null }, testPrincipal);
  });

  it('skips a run erased mid-backtest instead of comparing it, whether erased before its replay or while its replay was judged, and erases that replay (issue 60 point 4)', async () => {
    server.respond = version1;
    const chosen = [(await execute('grader', { message: 'first essay, good' })).executionId, (await execute('grader', { message: 'second essay' })).executionId];
    await t.runtime.projections.catchUp();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const judging = (request: RecordedRequest) => JSON.stringify(request.body.messages).includes('Rubric');
    server.reset();
    server.respond = (request) => (judging(request) ? { heldUntil: held, content: { score: 0.2, rationale: 'the grade moved' } } : { content: { score: 999, label: 'changed' } });
    const started = await startBacktest(t.runtime.execution, scope, { flowId: graderId, draft: true, selection: { kind: 'executions', executionIds: chosen }, judge: { rubric: 'The grade must not change.' }, concurrency: 1 }, testPrincipal);
    const running = started.run();
    // The first run's replay has ended and is being judged; the second's has not started. Both are erased now.
    await until(() => server.requests.some(judging), 'the judge to be asked about the first pair');
    for (const id of chosen) {
      const erased = await fetch(`${base}/seq/acme/web/grader/runs/${id}/data?reason=ticket`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      expect(erased.status).toBe(200);
    }
    release();
    const report = await running;
    expect(report.runs).toEqual([]);
    expect(report.erased.map((e) => e.executionId)).toEqual(chosen);
    expect(report.summary).toEqual({ total: 2, same: 0, different: 0, failed: 0, notRun: 0, erased: 2 });
    const types = (await streamOf(`backtest-${started.backtestId}`)).map((e) => e.type);
    expect(types.filter((type) => type.startsWith('BacktestRun'))).toEqual(['BacktestRunSkipped', 'BacktestRunSkipped']);
    // The first run's replay read its input before the erasure: it is erased too; the second was never replayed.
    const [first, second] = report.erased;
    expect((await streamOf(`execution-${first!.backtestExecutionId}`)).map((e) => e.type)).toContain('RunDataErased');
    expect(await t.runtime.eventStore.streamExists(`execution-${second!.backtestExecutionId}`)).toBe(false);
    await t.runtime.projections.catchUp();
    const page = await backtestPage(t.runtime.db, scope, { backtestId: started.backtestId, limit: 10 });
    expect({ outcomes: page.pairs.map((p) => p.outcome), summary: page.summary }).toMatchObject({ outcomes: ['erased', 'erased'], summary: { total: 2, erased: 2, compared: 0 } });
  });

  it('finishes a backtest whose process died as interrupted, counting the runs it did not compare as not run', async () => {
    const orphan = await startBacktest({ ...t.runtime.execution, runner: 'a-process-that-died' }, scope, { flowId: graderId, version: 1, selection: { kind: 'last', count: 2 } }, testPrincipal);
    await t.runtime.projections.catchUp();
    expect(await finishInterruptedBacktests({ db: t.runtime.db, commands: t.runtime.commands, principal: { kind: 'system', id: 'sweep' } })).toBeGreaterThanOrEqual(1);
    expect((await streamOf(`backtest-${orphan.backtestId}`)).at(-1)).toMatchObject({ type: 'BacktestFinished', data: { status: 'interrupted', summary: { total: 2, notRun: 2 } } });
    await t.runtime.projections.catchUp();
    expect(await finishInterruptedBacktests({ db: t.runtime.db, commands: t.runtime.commands, principal: { kind: 'system', id: 'sweep' } })).toBe(0);
  });
});
