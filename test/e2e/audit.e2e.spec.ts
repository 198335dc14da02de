import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalLine, exportRun } from '../../src/audit/runExport.ts';
import { verifyExport } from '../../src/audit/exportVerification.ts';
import { replayExecution } from '../../src/audit/runAudit.ts';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { deliveryIdFor } from '../../src/commands/deliveryCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { execution } from '../../src/domain/execution/execution.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { acceptJob } from '../../src/execution/flowEngine.ts';
import { continueExecution } from '../../src/execution/continueExecution.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';

import { addTestCase } from '../../src/testing/testCases.ts';
import { runTestCase } from '../../src/testing/testRunner.ts';
import { runCli } from '../support/runProcess.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { eventsApart } from '../support/runEventsApart.ts';

/**
 * Runs of every kind, replayed from the log and exported. With SEQFLOW_WRITE_AUDIT_CORPUS=<folder>
 * the exports are written there: that is how test/fixtures/audit-corpus was recorded.
 */
const gradeSchema = { type: 'object', properties: { score: { type: 'integer' } }, required: ['score'] };
const flows = {
  pipeline: [
    { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' } },
    { block: { name: 'keep', processor_type: 'passthrough' } },
    { block: { name: 'grade', processor_type: 'llm', prompt: 'Grade: {{previous_output.text}}', output_schema: gradeSchema } },
  ],
  fanout: [
    { block: { name: 'split', processor_type: 'code', code: 'return { items: input.message.split(" ") };' } },
    { loop: { over: 'previous_output.items', block: { name: 'each', processor_type: 'passthrough' } } },
    { parallel: [{ name: 'count', processor_type: 'code', code: 'return { n: input.previous_output.length };' }, { name: 'same', processor_type: 'passthrough' }] },
  ],
  agent: [{ block: { name: 'agent', processor_type: 'llm', prompt: '{{message}}', processor_config: { tools_enabled: true } } }],
  broken: [{ block: { name: 'boom', processor_type: 'code', code: 'throw new Error("no");' } }],
  asker: [{ block: { name: 'ask', processor_type: 'llm', prompt: '{{message}}' } }],
};

describe('audits of runs: replay from the log, a verifiable export', () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  const runs = new Map<string, string>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies of several shapes
  const execute = async (flow: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
    const response = await fetch(`${base}/seq/acme/web/${flow}/execute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
    // A failed run answers {detail: {code, message, executionId}}.
    return { ...answer, executionId: answer.executionId ?? answer.detail?.executionId };
  };

  beforeAll(async () => {
    model = await startScriptedModelServer();
    t = await createTestRuntime('audit', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    key = await seedProject(t.runtime, flows);
    await t.runtime.projections.catchUp();
    ({ app, base } = await serveApi(t.runtime));

    model.script({ content: { score: 7 }, usage: { prompt_tokens: 12, completion_tokens: 3 } });
    runs.set('pipeline', (await execute('pipeline', { message: '  an essay ' })).executionId);
    runs.set('loop-and-parallel', (await execute('fanout', { message: 'a b c' })).executionId);
    runs.set('failure', (await execute('broken', { message: 'x' })).executionId);

    model.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] }, { content: 'found it' });
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
    const pause = await execute('agent', { message: 'look it up', tools });
    await execute('agent', { executionId: pause.executionId, pausedAtStep: 'agent', iterationsUsed: pause.iterationsUsed, toolCallMessages: [...pause.toolCallMessages, { role: 'tool', tool_call_id: 'call_1', content: '{"hit":true}' }], tools });
    runs.set('tools', pause.executionId);

    // A job whose webhook is dead-lettered after six failed attempts, each started when it was due.
    const flow = await t.runtime.db.selectFrom('flows').select(['id', 'organization_id', 'project_id', 'production_version_id']).where('slug', '=', 'asker').executeTakeFirstOrThrow();
    const executionId = crypto.randomUUID();
    const principal = { kind: 'system' as const, id: 'test' };
    model.script({ content: 'fine' });
    await acceptJob(t.runtime.execution, {
      executionId, flowId: flow.id, versionId: flow.production_version_id!, versionNumber: 1, organizationId: flow.organization_id, projectId: flow.project_id, steps: flows.asker as never, message: 'hi', parameters: {}, attachments: [],
      tools: undefined, mode: 'async', apiKeyId: null, principal, callback: { url: 'https://hooks.example/in', events: ['flow.completed'] },
    });
    await continueExecution(t.runtime.execution, { executionId, worker: 'w', claim: 1, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
    const deliveryId = deliveryIdFor(executionId, 'flow.completed');
    const deps = t.runtime.commands;
    await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: flow.organization_id, executionId, flowId: flow.id, event: 'flow.completed', url: 'https://hooks.example/in', body: '{}', truncated: false } } }, testPrincipal);
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    for (let attempt = 1; attempt <= 6; attempt++) {
      await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'StartAttempt', data: { now: new Date(now).toISOString() } }, testPrincipal);
      const finished = await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'FinishAttempt', data: { attempt, start: 1, result: { kind: 'response', status: 503 }, errorExcerpt: 'busy', endedAt: new Date(now + 100).toISOString(), durationMs: 100, secretVersions: [1] } }, testPrincipal);
      now = Date.parse((finished.state as { nextAttemptAt: string | null }).nextAttemptAt ?? new Date(now).toISOString());
    }
    runs.set('job-dead-letter', executionId);

    // A job taken over: its first worker claimed it and started the block, then died; the second claim ran it again.
    const takenOver = crypto.randomUUID();
    await acceptJob(t.runtime.execution, {
      executionId: takenOver, flowId: flow.id, versionId: flow.production_version_id!, versionNumber: 1, organizationId: flow.organization_id, projectId: flow.project_id, steps: flows.asker as never, message: 'again', parameters: {}, attachments: [],
      tools: undefined, mode: 'async', apiKeyId: null, principal, callback: null,
    });
    const [askStep] = await t.runtime.flows.versionSteps(flow.production_version_id!);
    const ask = 'block' in askStep! ? askStep.block : null;
    for (const event of [
      { type: 'JobClaimed' as const, data: { executionId: takenOver, worker: 'w1', claim: 1 } },
      { type: 'ExecutionStepStarted' as const, data: { executionId: takenOver, stepIndex: 0, blockId: ask!.id, blockName: 'ask', iteration: null, processorType: 'llm' as const, input: { prompt: 'again', model: 'gpt-4o-mini', attachments: 0, responseFormat: { type: 'text' } }, missingPlaceholders: [] } },
    ]) {
      await handleCommand(deps, `execution-${takenOver}`, execution, { type: 'Record', event }, testPrincipal);
    }
    model.script({ content: 'fine again' });
    await continueExecution(t.runtime.execution, { executionId: takenOver, worker: 'w2', claim: 2, principal, loadSteps: (id) => t.runtime.flows.versionSteps(id) });
    runs.set('job-taken-over', takenOver);

    // A test run, with its assertions.
    const agentFlow = await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'pipeline').executeTakeFirstOrThrow();
    const testCase = await addTestCase(deps, {}, { flowId: agentFlow.id, definition: { name: 'grades', input: { message: 'essay' }, assertions: [{ type: 'path_equals', path: 'score', value: 9 }] } }, testPrincipal);
    model.script({ content: { score: 9 } });
    runs.set('test-run', (await runTestCase(t.runtime.execution, {}, { testCaseId: testCase.testCaseId }, testPrincipal)).executionId);
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await model?.close();
  });

  it('replays every kind of run from the log without a divergence', async () => {
    for (const [kind, executionId] of runs) {
      const report = await replayExecution(t.runtime.eventStore, executionId);
      expect(report.divergence, kind).toBeNull();
    }
    expect((await replayExecution(t.runtime.eventStore, runs.get('job-dead-letter')!)).deliveries).toBe(1);
    const takeover = eventsApart(await t.runtime.eventStore.readStream(`execution-${runs.get('job-taken-over')}`)).map((e) => e.type);
    expect(takeover).toEqual(['ExecutionRequested', 'JobClaimed', 'ExecutionStepStarted', 'JobClaimed', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed', 'ExecutionCompleted']);
  });

  it('exports each run as a file that verifies alone; the corpus of recorded histories is written from here on request', async () => {
    const corpus = process.env.SEQFLOW_WRITE_AUDIT_CORPUS;
    if (corpus) mkdirSync(corpus, { recursive: true });
    for (const [kind, executionId] of runs) {
      const lines = await exportRun(t.runtime, executionId);
      const text = `${lines.join('\n')}\n`;
      expect(verifyExport(text), kind).toEqual({ ok: true, lines: lines.length, failure: null });
      // No key, secret or ciphertext: only ids, hashes of keys never, secret versions only.
      expect(text, kind).not.toMatch(/whsec_|sf_(live|test)_|ciphertext|secretHash|encrypted/);
      if (corpus) writeFileSync(path.join(corpus, `${kind}.jsonl`), text);
    }
    const deadLetter = (await exportRun(t.runtime, runs.get('job-dead-letter')!)).at(-1)!;
    expect(JSON.parse(deadLetter).deliveries[0].attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['failed_retry', 'failed_retry', 'failed_retry', 'failed_retry', 'failed_retry', 'dead_letter']);
    const manifest = JSON.parse((await exportRun(t.runtime, runs.get('pipeline')!))[0]!);
    expect(manifest).toMatchObject({ kind: 'manifest', format: 'seqflow-run-export/3', executionId: runs.get('pipeline'), route: 'sync', startedBy: { kind: 'apiKey' }, version: { number: 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const facts = JSON.parse((await exportRun(t.runtime, runs.get('pipeline')!)).at(-1)!);
    // The default model's catalog price (gpt-4o-mini: $0.15 and $0.60 per million): 12 × 0.15 + 3 × 0.6 = $0.0000036, to the millionth.
    expect(facts).toMatchObject({ kind: 'facts', credits: [{ blockName: 'grade', tokens: 15, costUsd: 0.000004 }], tokens: 15, costUsd: 0.000004 });
    expect(JSON.parse((await exportRun(t.runtime, runs.get('test-run')!)).at(-1)!).testResults).toMatchObject({ passed: true });
  });

  it('still verifies a file of export format 1 (facts without cost), and refuses one whose format-1 facts carry a cost', async () => {
    const lines = await exportRun(t.runtime, runs.get('pipeline')!);
    const manifest = { ...JSON.parse(lines[0]!), format: 'seqflow-run-export/1' };
    const { costUsd: _total, credits, ...facts } = JSON.parse(lines.at(-1)!);
    const v1Facts = { ...facts, credits: credits.map(({ costUsd: _cost, ...credit }: { costUsd: number }) => credit) };
    const v1 = [canonicalLine(manifest), ...lines.slice(1, -1), canonicalLine(v1Facts)];
    expect(verifyExport(`${v1.join('\n')}\n`)).toEqual({ ok: true, lines: lines.length, failure: null });
    const mixed = [canonicalLine(manifest), ...lines.slice(1)];
    expect(verifyExport(`${mixed.join('\n')}\n`)).toMatchObject({ ok: false, failure: { line: lines.length, reason: 'the facts are not what the events say' } });
  });

  it('exports, verifies and replays from the CLI, exiting 1 with the failing line or the divergence', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'seqflow-audit-'));
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
    const file = path.join(dir, 'run.jsonl');
    const exported = await runCli(['audit', 'export', '--execution', runs.get('tools')!, '--out', file], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ executionId: runs.get('tools'), file });
    const verified = await runCli(['audit', 'verify', '--file', file], {});
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
    // The question is sealed in the file (the manifest carries the run's key): one changed character of its ciphertext shows.
    const exportedLines = readFileSync(file, 'utf8').split('\n');
    expect(exportedLines[2]).not.toContain('look it up');
    writeFileSync(file, exportedLines.map((line, i) => (i === 2 ? line.replace(/"sealed:v3:(.)/, (_all, c: string) => `"sealed:v3:${c === 'A' ? 'B' : 'A'}`) : line)).join('\n'));
    const tampered = await runCli(['audit', 'verify', '--file', file], {});
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/line 3: changed: /);
    // Signed with an Ed25519 key from the configuration, verified with its public key only.
    const signing = generateKeyPairSync('ed25519');
    const stranger = generateKeyPairSync('ed25519');
    const keys = { private: path.join(dir, 'audit.key'), public: path.join(dir, 'audit.pub'), stranger: path.join(dir, 'stranger.pub') };
    writeFileSync(keys.private, signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(keys.public, signing.publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(keys.stranger, stranger.publicKey.export({ type: 'spki', format: 'pem' }));
    const signedFile = path.join(dir, 'signed.jsonl');
    expect((await runCli(['audit', 'export', '--execution', runs.get('tools')!, '--out', signedFile], { ...env, SEQFLOW_AUDIT_SIGNING_KEY_FILE: keys.private })).code).toBe(0);
    expect(JSON.parse(readFileSync(signedFile, 'utf8').split('\n')[0]!).signature).toMatchObject({ alg: 'Ed25519', value: expect.any(String) });
    expect((await runCli(['audit', 'verify', '--file', signedFile, '--public-key', keys.public], {})).code).toBe(0);
    const wrongKey = await runCli(['audit', 'verify', '--file', signedFile, '--public-key', keys.stranger], {});
    expect([wrongKey.code, wrongKey.stderr]).toEqual([1, expect.stringContaining('line 1: the manifest signature does not verify with the given public key')]);
    const unsigned = await runCli(['audit', 'verify', '--file', file, '--public-key', keys.public], {});
    expect([unsigned.code, unsigned.stderr]).toEqual([1, expect.stringContaining('line 1: the manifest is not signed')]);
    const replayed = await runCli(['audit', 'replay', '--flow', (await t.runtime.db.selectFrom('flows').select('id').where('slug', '=', 'pipeline').executeTakeFirstOrThrow()).id], env);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ runs: 2, diverged: 0 });
    rmSync(dir, { recursive: true, force: true });
  });

  it('reruns a run with the same input on the same version, even after production moved on, linked both ways', async () => {
    // Production moves on to a version 2 that has no model at all.
    const moved = await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'pipeline', name: 'pipeline', steps: [{ block: { name: 'only', processor_type: 'passthrough' } }] }, publish: true, production: true }, testPrincipal);
    await t.runtime.projections.catchUp();
    const production = await t.runtime.db.selectFrom('flows').select('production_version_number').where('slug', '=', 'pipeline').executeTakeFirstOrThrow();
    expect([moved.versionId, production.production_version_number]).toEqual([expect.any(String), 2]);
    model.script({ content: { score: 7 }, usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const original = runs.get('pipeline')!;
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' };
    const cli = await runCli(['runs', 'rerun', '--execution', original], env);
    expect(cli.code, cli.stderr).toBe(0);
    const rerun = JSON.parse(cli.stdout) as { executionId: string; status: string; result: unknown; rerunOf: string; version: { number: number } };
    expect(rerun).toMatchObject({ status: 'completed', result: { score: 7 }, rerunOf: original, version: { number: 1 } });
    expect(model.requests.at(-1)!.body.messages[0]).toMatchObject({ content: 'Grade: an essay' });
    const requested = (await t.runtime.eventStore.readStream(`execution-${rerun.executionId}`))[0]!;
    expect(requested.data).toMatchObject({ rerunOf: original, versionNumber: 1, message: '  an essay ' });
    expect((await t.runtime.eventStore.readStream(`execution-${original}`)).at(-1)).toMatchObject({ type: 'ExecutionRerunStarted', data: { executionId: original, rerunExecutionId: rerun.executionId } });
    // Both still replay, and the original's export (now with its link) verifies.
    expect((await replayExecution(t.runtime.eventStore, original)).divergence).toBeNull();
    expect((await replayExecution(t.runtime.eventStore, rerun.executionId)).divergence).toBeNull();
    expect(verifyExport(`${(await exportRun(t.runtime, original)).join('\n')}\n`).ok).toBe(true);
  });

  it('names the line when any byte of any line is changed, a line is dropped, or two are swapped', async () => {
    const lines = await exportRun(t.runtime, runs.get('tools')!);
    const verify = (edited: string[]) => verifyExport(`${edited.join('\n')}\n`);
    for (const [index, line] of lines.entries()) {
      // One byte: a digit changed where there is one, else a letter.
      const at = line.search(/[0-9]/) >= 0 ? line.search(/[0-9]/) : line.search(/[a-z]/);
      const changed = line.slice(0, at) + (line[at] === '1' ? '2' : line[at] === 'a' ? 'b' : '1') + line.slice(at + 1);
      const result = verify(lines.map((l, i) => (i === index ? changed : l)));
      expect(result.ok, `line ${index + 1}`).toBe(false);
      expect(result.failure!.line, `line ${index + 1}: ${result.failure!.reason}`).toBe(index + 1);
    }
    const spaced = verify(lines.map((l, i) => (i === 3 ? l.replace(':', ': ') : l)));
    expect(spaced.failure).toEqual({ line: 4, reason: 'not in the canonical form it was written in: a byte was changed' });
    const dropped = verify(lines.filter((_, i) => i !== 4));
    expect(dropped.failure!.line).toBe(5);
    expect(dropped.failure!.reason).toMatch(/^removed: /);
    const swapped = verify(lines.map((l, i) => (i === 3 ? lines[4]! : i === 4 ? lines[3]! : l)));
    expect(swapped.failure!.line).toBe(4);
    const noFacts = verify(lines.slice(0, -1));
    expect(noFacts.failure!.line).toBe(lines.length - 1);
  });
});
