import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addBlock, createFlow, publishDraft, setBlockOutputSchema, setProduction, setPromotionGate, updateBlock } from '../../src/authoring/flowAuthoring.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { addTestCase } from '../../src/testing/testCases.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { runSuite } from '../../src/testing/testSuite.ts';
import { runTrace, stepTrace } from '../../src/testing/runTrace.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const gradeSchema = { type: 'object', properties: { overall_score: { type: 'integer' }, summary: { type: 'string' } }, required: ['overall_score', 'summary'] };

describe('running test cases (ordinary runs, pinned to a target, assertions recorded)', () => {
  let server: ScriptedModelServer;
  let t: TestRuntime;
  let flowId: string;
  let gradeId: string;
  let toolsFlowId: string;
  const scope = {};

  const add = async (flow: string, definition: Record<string, unknown>) => (await addTestCase(t.runtime.commands, scope, { flowId: flow, definition }, testPrincipal)).testCaseId;
  const streamOf = async (id: string) => (await t.runtime.eventStore.readStream(id)).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  beforeAll(async () => {
    server = await startScriptedModelServer();
    t = await createTestRuntime('testruns', { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    const projectId = (await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal)).id;
    const deps = t.runtime.commands;
    flowId = (await createFlow(deps, scope, { projectId, name: 'Grader', slug: 'grader' }, testPrincipal)).flowId;
    const prep = await addBlock(deps, scope, { flowId, name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' }, testPrincipal);
    gradeId = (await addBlock(deps, scope, { flowId, name: 'grade', processor_type: 'llm', prompt: 'Grade: {{previous_output.text}}', targetId: prep.blockId }, testPrincipal)).blockId;
    await setBlockOutputSchema(deps, scope, { flowId, blockId: gradeId, schema: gradeSchema }, testPrincipal);
    const v1 = await publishDraft(deps, scope, { flowId, note: null }, testPrincipal);
    await setProduction({ ...deps, db: t.runtime.db }, scope, { flowId, versionId: v1.versionId }, testPrincipal);

    toolsFlowId = (await createFlow(deps, scope, { projectId, name: 'Agent', slug: 'agent' }, testPrincipal)).flowId;
    const agent = await addBlock(deps, scope, { flowId: toolsFlowId, name: 'agent', processor_type: 'llm', prompt: '{{message}}' }, testPrincipal);
    await updateBlock(deps, scope, { flowId: toolsFlowId, blockId: agent.blockId, changes: { processor_config: { tools_enabled: true } } }, testPrincipal);
    await publishDraft(deps, scope, { flowId: toolsFlowId, note: null }, testPrincipal);
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });
  beforeEach(() => server.reset());

  it('passes a case whose assertions all hold, against the production version, and records the run as a test', async () => {
    const testCaseId = await add(flowId, {
      name: 'grades',
      input: { message: '  he go  ' },
      assertions: [
        { type: 'path_equals', path: 'overall_score', value: 72 },
        { type: 'number_range', path: 'overall_score', min: 0, max: 100 },
        { type: 'json_schema', schema: gradeSchema },
        { type: 'contains', path: 'summary', value: 'grammar' },
        { type: 'regex', path: 'summary', pattern: '^One grammar' },
        { type: 'max_tokens', value: 100 },
        { type: 'max_latency_ms', value: 60_000 },
      ],
    });
    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(summary).toMatchObject({ passed: true, runStatus: 'completed', target: { kind: 'version', number: 1 }, tokens: 15 });
    expect(summary.results.map((r) => [r.type, r.passed])).toEqual([['path_equals', true], ['number_range', true], ['json_schema', true], ['contains', true], ['regex', true], ['max_tokens', true], ['max_latency_ms', true]]);
    expect(server.requests[0]!.body.messages[0]!.content).toBe('Grade: he go');

    const run = await streamOf(`execution-${summary.executionId}`);
    expect(run[0]).toMatchObject({ type: 'ExecutionRequested', data: { mode: 'test', testRunId: summary.testRunId, versionNumber: 1 } });
    const recorded = await streamOf(`testrun-${summary.testRunId}`);
    expect(recorded.map((e) => e.type)).toEqual(['TestRunStarted', 'TestRunFinished']);
    expect(recorded[0]!.data).toMatchObject({ testCaseId, executionId: summary.executionId, target: { kind: 'version', number: 1 } });
    expect(recorded[1]!.data).toMatchObject({ passed: true, results: summary.results });
  });

  it('fails a case with the reason of each failing assertion', async () => {
    const testCaseId = await add(flowId, { name: 'strict', input: { message: 'x' }, assertions: [{ type: 'path_equals', path: 'overall_score', value: 90 }, { type: 'not_contains', value: 'grammar' }, { type: 'max_tokens', value: 1000 }] });
    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(summary.passed).toBe(false);
    expect(summary.results).toEqual([
      { type: 'path_equals', passed: false, score: 0, reason: 'result.overall_score is 72, expected 90' },
      { type: 'not_contains', passed: false, score: 0, reason: expect.stringContaining('contains "grammar"') },
      { type: 'max_tokens', passed: true, score: 1, reason: expect.any(String) },
    ]);
  });

  it("asserts on any block by name: its output, tokens and whether it ran; a judge reads that block's output; each result names its block", async () => {
    const testCaseId = await add(flowId, {
      name: 'steps',
      input: { message: '  he go  ' },
      assertions: [
        { type: 'path_equals', step: 'prep', path: 'text', value: 'he go' },
        { type: 'path_equals', step: 'prep', path: 'text', value: 'she goes' },
        { type: 'step_ran', step: 'grade' },
        { type: 'step_skipped', step: 'grade' },
        { type: 'max_tokens', step: 'prep', value: 0 },
        { type: 'llm_judge', step: 'prep', rubric: 'The text is trimmed.' },
      ],
    });
    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } }, { content: { score: 1, rationale: 'Trimmed.' } });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(summary.passed).toBe(false);
    expect(summary.results).toEqual([
      { type: 'path_equals', step: 'prep', passed: true, score: 1, reason: 'steps.prep.output.text equals "he go"' },
      { type: 'path_equals', step: 'prep', passed: false, score: 0, reason: 'steps.prep.output.text is "he go", expected "she goes"' },
      { type: 'step_ran', step: 'grade', passed: true, score: 1, reason: "block 'grade' ran" },
      { type: 'step_skipped', step: 'grade', passed: false, score: 0, reason: "block 'grade' ran, expected it to be skipped" },
      { type: 'max_tokens', step: 'prep', passed: true, score: 1, reason: "block 'prep' used 0 tokens" },
      { type: 'llm_judge', step: 'prep', passed: true, score: 1, reason: expect.any(String), judge: expect.objectContaining({ rationale: 'Trimmed.' }) },
    ]);
    // The judge was shown the block's output, not the run's result.
    const judged = JSON.stringify(server.requests[1]!.body.messages);
    expect(judged).toContain('he go');
    expect(judged).not.toContain('One grammar issue');
  });

  it('asks an llm judge, records its model, prompt hash and rationale, and charges its tokens', async () => {
    const testCaseId = await add(flowId, { name: 'judged', input: { message: 'x' }, assertions: [{ type: 'llm_judge', rubric: 'The summary names the issue.', model: 'gpt-4o', threshold: 0.8 }] });
    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } }, { content: { score: 0.9, rationale: 'It names grammar.' }, usage: { prompt_tokens: 40, completion_tokens: 10 } });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(summary.results).toEqual([{ type: 'llm_judge', passed: true, score: 0.9, reason: expect.any(String), judge: { model: 'gpt-4o', promptHash: expect.stringMatching(/^[0-9a-f]{64}$/), rationale: 'It names grammar.' } }]);
    expect(server.requests[1]!.body).toMatchObject({ model: 'gpt-4o', response_format: { json_schema: { strict: true } } });
    expect(summary.tokens).toBe(15 + 50);
    expect((await streamOf(`testrun-${summary.testRunId}`)).map((e) => e.type)).toEqual(['TestRunStarted', 'CreditsConsumed', 'TestRunFinished']);
  });

  it('fails a judged case when the judge scores under the threshold, or cannot answer, with the reason recorded', async () => {
    const testCaseId = await add(flowId, { name: 'judged strictly', input: { message: 'x' }, assertions: [{ type: 'llm_judge', rubric: 'The summary quotes the sentence.', threshold: 0.8 }] });
    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } }, { content: { score: 0.3, rationale: 'No quote.' } });
    const low = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(low).toMatchObject({ passed: false, runStatus: 'completed' });
    expect(low.results).toEqual([{ type: 'llm_judge', passed: false, score: 0.3, reason: 'the judge scored 0.3 (below 0.8)', judge: expect.objectContaining({ rationale: 'No quote.' }) }]);

    server.script({ content: { overall_score: 72, summary: 'One grammar issue.' } }, { status: 400, errorBody: { error: { message: 'model overloaded', type: 'invalid_request_error' } } });
    const unanswered = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(unanswered.passed).toBe(false);
    expect(unanswered.results).toEqual([expect.objectContaining({ type: 'llm_judge', passed: false, score: 0, reason: expect.stringContaining('the judge could not answer') })]);
    // The provider's error text stays in the service log, out of the recorded reason.
    expect(JSON.stringify(await streamOf(`testrun-${unanswered.testRunId}`))).not.toContain('model overloaded');
    expect(t.logs()).toContain('model overloaded');
    expect((await streamOf(`testrun-${unanswered.testRunId}`)).at(-1)).toMatchObject({ type: 'TestRunFinished', data: { passed: false } });
  });

  it('says why a test case\'s run failed: the code and message its run failed with', async () => {
    const testCaseId = await add(flowId, { name: 'fails', input: { message: 'w' }, assertions: [{ type: 'number_range', path: 'overall_score', min: 0 }] });
    server.script({ content: 'not json' }, { content: 'still not json' });
    const failed = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(failed).toMatchObject({ runStatus: 'failed', passed: false, error: { code: 'MODEL_OUTPUT_INVALID', message: expect.stringContaining('ignored the output schema') } });
    expect((await streamOf(`testrun-${failed.testRunId}`)).at(-1)).toMatchObject({ type: 'TestRunFinished', data: { error: { code: 'MODEL_OUTPUT_INVALID' } } });
  });

  it('runs against the draft, snapshotted in the test run, while production stays as it was', async () => {
    await updateBlock(t.runtime.commands, scope, { flowId, blockId: gradeId, changes: { prompt: 'Grade strictly: {{previous_output.text}}' } }, testPrincipal);
    const testCaseId = await add(flowId, { name: 'draft', input: { message: 'y' }, assertions: [{ type: 'number_range', path: 'overall_score', min: 0 }] });
    server.script({ content: { overall_score: 10, summary: 'ok' } }, { content: { overall_score: 10, summary: 'ok' } });
    const draft = await runTestCase(t.runtime.execution, scope, { testCaseId, draft: true }, testPrincipal);
    expect(draft).toMatchObject({ passed: true, target: { kind: 'draft' } });
    expect(server.requests[0]!.body.messages[0]!.content).toBe('Grade strictly: y');
    expect((await streamOf(`testrun-${draft.testRunId}`))[0]!.data).toMatchObject({ target: { kind: 'draft', steps: expect.any(Array) } });
    const version = await runTestCase(t.runtime.execution, scope, { testCaseId, version: 1 }, testPrincipal);
    expect(server.requests[1]!.body.messages[0]!.content).toBe('Grade: y');
    expect(version.target).toEqual({ kind: 'version', number: 1 });
    await expect(runTestCase(t.runtime.execution, scope, { testCaseId, version: 7 }, testPrincipal)).rejects.toMatchObject({ code: 'VERSION_NOT_FOUND' });
  });

  it('runs every case of a flow as one suite against one target, with totals, recorded as one event', async () => {
    server.respond = () => ({ content: { overall_score: 72, summary: 'One grammar issue.' } });
    await t.runtime.projections.catchUp(); // a suite lists the flow's cases from the read model
    const suite = await runSuite(t.runtime.execution, scope, { flowId, version: 1 }, testPrincipal);
    expect(suite.target).toEqual({ kind: 'version', number: 1 });
    expect(suite.totals.total).toBe(suite.runs.length);
    expect(suite.totals.total).toBeGreaterThanOrEqual(4);
    expect(suite.totals.failed).toBe(suite.runs.filter((r) => !r.passed).length);
    expect(suite.runs.find((r) => r.name === 'strict')!.passed).toBe(false);
    expect(suite.runs.find((r) => r.name === 'grades')!.passed).toBe(true);
    const recorded = await streamOf(`testsuite-${suite.suiteRunId}`);
    expect(recorded).toEqual([{ type: 'TestSuiteRunFinished', data: expect.objectContaining({ flowId, totals: suite.totals, target: expect.objectContaining({ kind: 'version', number: 1 }) }) }]);
    const onDraft = await runSuite(t.runtime.execution, scope, { flowId, draft: true }, testPrincipal);
    expect(onDraft.target).toEqual({ kind: 'draft' });
    // One snapshot for the whole suite: every case ran the same draft.
    const versions = await Promise.all(onDraft.runs.map(async (r) => (await streamOf(`execution-${r.executionId}`))[0]!.data.versionId));
    expect(new Set(versions)).toEqual(new Set([`draft:${onDraft.suiteRunId}`]));
  });

  it('answers a tools-enabled block from the case\'s scripted tool results, without a caller', async () => {
    const testCaseId = await add(toolsFlowId, {
      name: 'looks up',
      input: { message: 'what is the answer?' },
      tool_results: { lookup: '42' },
      assertions: [{ type: 'tool_called', name: 'lookup', arguments: { q: 'answer' } }, { type: 'equals', path: 'text', value: 'The answer is 42.' }],
    });
    server.script({ toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"answer"}' }] }, { content: 'The answer is 42.' });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal);
    expect(summary).toMatchObject({ passed: true, runStatus: 'completed' });
    expect(server.requests[1]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '42' });

    const trace = await runTrace(t.runtime.eventStore, scope, summary.executionId);
    expect(trace.toolRounds.map((r) => r.kind)).toEqual(['paused', 'resumed']);
    expect(trace).toMatchObject({ mode: 'test', status: 'completed', result: { text: 'The answer is 42.' } });
  });

  it('with the promotion gate on, sets production only for a version whose test cases all passed, or when forced', async () => {
    const deps = { ...t.runtime.commands, db: t.runtime.db };
    const projectId = (await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow()).id;
    const counter = (await createFlow(deps, scope, { projectId, name: 'Counter', slug: 'counter' }, testPrincipal)).flowId;
    const count = await addBlock(deps, scope, { flowId: counter, name: 'count', processor_type: 'code', code: 'return { n: input.message.length };' }, testPrincipal);
    await add(counter, { name: 'four', input: { message: 'four' }, assertions: [{ type: 'path_equals', path: 'n', value: 4 }] });
    const v1 = await publishDraft(deps, scope, { flowId: counter, note: null }, testPrincipal);
    await setPromotionGate(deps, scope, { flowId: counter, enabled: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    await expect(setProduction(deps, scope, { flowId: counter, versionId: v1.versionId }, testPrincipal)).rejects.toMatchObject({ code: 'TESTS_NOT_RUN', message: expect.stringContaining('four') });
    expect((await runSuite(t.runtime.execution, scope, { flowId: counter, version: 1 }, testPrincipal)).totals).toEqual({ total: 1, passed: 1, failed: 0 });
    await t.runtime.projections.catchUp();
    await setProduction(deps, scope, { flowId: counter, versionId: v1.versionId }, testPrincipal);

    // A version that breaks the case: refused, then forced on purpose, which the log records.
    await updateBlock(deps, scope, { flowId: counter, blockId: count.blockId, changes: { code: 'return { n: 0 };' } }, testPrincipal);
    const v2 = await publishDraft(deps, scope, { flowId: counter, note: null }, testPrincipal);
    expect((await runSuite(t.runtime.execution, scope, { flowId: counter, version: 2 }, testPrincipal)).totals.failed).toBe(1);
    await t.runtime.projections.catchUp();
    await expect(setProduction(deps, scope, { flowId: counter, versionId: v2.versionId }, testPrincipal)).rejects.toMatchObject({ code: 'TESTS_FAILING' });
    await setProduction(deps, scope, { flowId: counter, versionId: v2.versionId, force: { reason: 'known regression' } }, testPrincipal);
    const tail = (await streamOf(`flow-${counter}`)).slice(-2);
    expect(tail).toEqual([
      { type: 'FlowPromotionForced', data: { flowId: counter, versionId: v2.versionId, gate: 'failing', testCases: ['four'], backtest: null, reason: 'known regression' } },
      { type: 'FlowProductionVersionSet', data: expect.objectContaining({ versionId: v2.versionId, number: 2 }) },
    ]);
  });

  it('traces a test run from the log: target, steps with outputs, tokens, assertions; and one step in detail', async () => {
    const testCaseId = await add(flowId, { name: 'traced', input: { message: 'z' }, assertions: [{ type: 'max_tokens', value: 100 }] });
    server.script({ content: { overall_score: 5, summary: 'x'.repeat(3000) } });
    const summary = await runTestCase(t.runtime.execution, scope, { testCaseId, version: 1 }, testPrincipal);
    const trace = await runTrace(t.runtime.eventStore, scope, summary.executionId);
    expect(trace).toMatchObject({ executionId: summary.executionId, flowId, mode: 'test', version: { number: 1 }, target: { kind: 'version', number: 1 }, status: 'completed', tokens: 15, assertions: [{ type: 'max_tokens', passed: true }] });
    expect(trace.steps.map((s) => [s.name, s.status])).toEqual([['prep', 'completed'], ['grade', 'completed']]);
    expect((trace.result as { summary: string }).summary).toMatch(/^x{2000}… \[truncated: 3000 characters\]$/);
    const step = await stepTrace(t.runtime.eventStore, scope, summary.executionId, gradeId);
    expect(step.executions).toEqual([
      expect.objectContaining({ prompt: 'Grade: z', missingPlaceholders: [], model: 'gpt-4o-mini', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, attempts: 1, toolRounds: 0, error: null }),
    ]);
    await expect(runTrace(t.runtime.eventStore, { organizationIds: ['someone-else'] }, summary.executionId)).rejects.toMatchObject({ code: 'EXECUTION_NOT_FOUND' });

    // A reply the schema refused, then repaired: the step trace says why it was refused.
    server.script({ content: { overall_score: 'high' } }, { content: { overall_score: 50, summary: 'ok' } });
    const repaired = await runTestCase(t.runtime.execution, scope, { testCaseId, version: 1 }, testPrincipal);
    const detail = await stepTrace(t.runtime.eventStore, scope, repaired.executionId, gradeId);
    expect(detail.executions[0]).toMatchObject({ attempts: 2, validationErrors: [expect.stringContaining('overall_score must be integer')] });
    await expect(stepTrace(t.runtime.eventStore, scope, summary.executionId, 'nope')).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND' });
  });

  it.each([
    ['an http URL to the metadata service', { kind: 'url', url: 'http://169.254.169.254/latest/meta-data/x.png', mime_type: 'image/png' }, 'ATTACHMENT_INVALID_SCHEME'],
    ['a data: URL', { kind: 'url', url: 'data:image/png;base64,AAAA', mime_type: 'image/png' }, 'ATTACHMENT_INVALID_SCHEME'],
    ['a file: URL', { kind: 'url', url: 'file:///etc/passwd', mime_type: 'image/png' }, 'ATTACHMENT_INVALID_SCHEME'],
    ['a PDF', { kind: 'url', url: 'https://93.184.216.34/doc.pdf', mime_type: 'application/pdf' }, 'ATTACHMENT_UNSUPPORTED_MIME'],
  ])('refuses to save a test case whose attachment is %s, as /execute refuses it', async (_label, attachment, code) => {
    await expect(addTestCase(t.runtime.commands, scope, { flowId, definition: { name: 'bad', input: { message: 'm', attachments: [attachment] }, assertions: [{ type: 'contains', value: 'x' }] } }, testPrincipal)).rejects.toMatchObject({ code });
  });

  it.each([
    ['the metadata service', 'https://169.254.169.254/latest/x.png'],
    ['a private address', 'https://10.0.0.1/x.png'],
  ])('refuses to run a case whose attachment host is %s (checked through the guard at each run), recording nothing', async (_label, url) => {
    const testCaseId = await add(flowId, { name: 'private host', input: { message: 'm', attachments: [{ kind: 'url', url, mime_type: 'image/png' }] }, assertions: [{ type: 'contains', value: 'x' }] });
    const before = await t.runtime.eventStore.headPosition();
    await expect(runTestCase(t.runtime.execution, scope, { testCaseId }, testPrincipal)).rejects.toMatchObject({ code: 'ATTACHMENT_BLOCKED_HOST' });
    expect(await t.runtime.eventStore.headPosition()).toBe(before);
    expect(server.requests).toHaveLength(0);
  });

  it('ends a test run whose engine run fails to run as failed, naming why, and a suite still records every case', async () => {
    // Injected in PostgreSQL itself: this case's run cannot write its first event, as when the log goes away.
    try {
      const suiteFlow = (await createFlow(t.runtime.commands, scope, { projectId: (await t.runtime.db.selectFrom('projects').select('id').executeTakeFirstOrThrow()).id, name: 'Suite', slug: 'suite-faults' }, testPrincipal)).flowId;
      await addBlock(t.runtime.commands, scope, { flowId: suiteFlow, name: 'echo', processor_type: 'passthrough' }, testPrincipal);
      const poisoned = await add(suiteFlow, { name: 'poisoned', input: { message: 'poison-test-marker' }, assertions: [{ type: 'contains', value: 'x' }] });
      await add(suiteFlow, { name: 'healthy', input: { message: 'fine' }, assertions: [{ type: 'contains', value: 'fine' }] });
      await t.runtime.projections.catchUp();
      // The poisoned case's run is known by its test run (its input is sealed in the log; ids are not).
      const ofPoisonedCase = sql`EXISTS (SELECT 1 FROM seqflow_events e WHERE e.event_type = 'TestRunStarted' AND e.data->>'testRunId' = NEW.data->>'testRunId' AND e.data->>'testCaseId' = ${sql.lit(poisoned)})`;
      await sql`CREATE FUNCTION fail_poisoned_test_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.event_type = 'ExecutionRequested' AND ${ofPoisonedCase} THEN RAISE EXCEPTION 'append failed (injected)'; END IF; RETURN NEW; END $$`.execute(t.runtime.db);
      await sql`CREATE TRIGGER fail_poisoned_test_run BEFORE INSERT ON seqflow_events FOR EACH ROW EXECUTE FUNCTION fail_poisoned_test_run()`.execute(t.runtime.db);

      const summary = await runTestCase(t.runtime.execution, scope, { testCaseId: poisoned, draft: true }, testPrincipal);
      expect(summary).toMatchObject({ runStatus: 'failed', passed: false, error: { code: 'INTERNAL' } });
      expect((await streamOf(`testrun-${summary.testRunId}`)).map((e) => e.type)).toEqual(['TestRunStarted', 'TestRunFinished']);

      const suite = await runSuite(t.runtime.execution, scope, { flowId: suiteFlow, draft: true }, testPrincipal);
      expect(suite.totals).toEqual({ total: 2, passed: 1, failed: 1 });
      expect((await streamOf(`testsuite-${suite.suiteRunId}`)).map((e) => e.type)).toEqual(['TestSuiteRunFinished']);
    } finally {
      await sql`DROP TRIGGER fail_poisoned_test_run ON seqflow_events`.execute(t.runtime.db);
    }
  });
});
