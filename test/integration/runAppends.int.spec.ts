import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { prepareExecution } from '../../src/execution/flowEngine.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scriptedModelServer.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { typesApart } from '../support/runEventsApart.ts';

const llm = { name: 'ask', processor_type: 'llm', prompt: '{{message}}' };
const code = { name: 'shape', processor_type: 'code', code: 'return { shaped: input.previous_output ?? input.message };' };

/** Which of a run's events went in one append: those of one transaction of the log. */
describe("a run's appends", () => {
  let model: ScriptedModelServer;
  let t: TestRuntime;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    model.respond = () => ({ content: 'answer' });
    t = await createTestRuntime('run_appends', { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'k', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SEQFLOW_DEFAULT_CREDITS: '1000000' });
    await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    for (const [slug, steps] of Object.entries({ 'llm-last': [{ block: code }, { block: llm }], 'llm-first': [{ block: llm }, { block: code }] })) {
      await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
    }
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
  });

  const run = async (slug: string) => {
    const project = await t.runtime.db.selectFrom('projects').select('id').where('slug', '=', 'web').executeTakeFirstOrThrow();
    const flow = await t.runtime.flows.findExecutableFlow({ org: 'acme', project: 'web', flow: slug }, project.id);
    const executionId = randomUUID();
    const prepared = await prepareExecution(t.runtime.execution, { executionId, ...flow, message: 'hello', parameters: {}, attachments: [], tools: undefined, mode: 'sync', apiKeyId: null, principal: testPrincipal.principal });
    expect((await prepared.start()).status).toBe('completed');
    const { rows } = await sql<{ event_type: string; data: { blockName?: string; started?: unknown }; tx: string }>`SELECT event_type, data, transaction_id::text AS tx FROM seqflow_events WHERE stream_id = ${`execution-${executionId}`} ORDER BY global_position`.execute(t.runtime.db);
    return rows;
  };
  const txOf = (rows: { event_type: string; data: { blockName?: string }; tx: string }[], type: string, blockName?: string) => rows.find((r) => r.event_type === type && (blockName === undefined || r.data.blockName === blockName))!.tx;

  it('records an llm block that ends the run with the run\'s end, in one append, its charge with them', async () => {
    const rows = await run('llm-last');
    // Each block's start may be told by its completion (runEventsApart.ts), as the run's appends fell out.
    expect(typesApart(rows)).toEqual(['ExecutionRequested', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'ExecutionStepStarted', 'ExecutionStepCompleted', 'CreditsConsumed', 'ExecutionCompleted']);
    const end = txOf(rows, 'ExecutionCompleted');
    expect(txOf(rows, 'ExecutionStepCompleted', 'ask')).toBe(end);
    expect(txOf(rows, 'CreditsConsumed')).toBe(end);
  });

  it('records an llm block durably before the next block runs: a job taken over does not call the model again', async () => {
    const rows = await run('llm-first');
    expect(txOf(rows, 'ExecutionStepCompleted', 'ask')).not.toBe(txOf(rows, 'ExecutionCompleted'));
    expect(txOf(rows, 'CreditsConsumed')).toBe(txOf(rows, 'ExecutionStepCompleted', 'ask'));
  });
});
