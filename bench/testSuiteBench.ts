import { addBlock, createFlow, publishDraft, setBlockOutputSchema } from '../src/authoring/flowAuthoring.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { addTestCase } from '../src/testing/testCases.ts';
import { runSuite } from '../src/testing/testSuite.ts';
import { startScriptedModelServer } from '../test/support/scriptedModelServer.ts';
import { openBenchRuntime } from './benchRuntime.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const CASES = 100;

/**
 * A suite of 100 test cases against a published two-block flow (code -> llm with an output schema),
 * the model answering at once: test cases run per second, each an ordinary engine run plus its
 * assertions and the test run's own events.
 */
export async function benchTestSuite(databaseUrl: string) {
  const model = await startScriptedModelServer();
  model.respond = () => ({ content: { verdict: 'fine', score: 7 } });
  const runtime = await openBenchRuntime(databaseUrl, model.baseUrl);
  try {
    const deps = runtime.commands;
    await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
    const project = await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
    const { flowId } = await createFlow(deps, {}, { projectId: project.id, name: 'Suite', slug: 'suite' }, principal);
    const prep = await addBlock(deps, {}, { flowId, name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' }, principal);
    const judge = await addBlock(deps, {}, { flowId, name: 'judge', processor_type: 'llm', prompt: 'Judge: {{previous_output.text}}', targetId: prep.blockId }, principal);
    await setBlockOutputSchema(deps, {}, { flowId, blockId: judge.blockId, schema: { type: 'object', properties: { verdict: { type: 'string' }, score: { type: 'integer' } }, required: ['verdict', 'score'] } }, principal);
    await publishDraft(deps, {}, { flowId, note: null }, principal);
    for (let i = 0; i < CASES; i++) {
      await addTestCase(deps, {}, { flowId, definition: { name: `case ${String(i).padStart(3, '0')}`, input: { message: `essay ${i}` }, assertions: [{ type: 'path_equals', path: 'verdict', value: 'fine' }, { type: 'number_range', path: 'score', min: 0, max: 10 }, { type: 'max_tokens', value: 100 }] } }, principal);
    }
    await runtime.projections.catchUp();
    const started = performance.now();
    const suite = await runSuite(runtime.execution, {}, { flowId }, principal);
    const seconds = (performance.now() - started) / 1000;
    return { cases: suite.totals.total, passed: suite.totals.passed, seconds: Number(seconds.toFixed(2)), casesPerSecond: Number((suite.totals.total / seconds).toFixed(1)) };
  } finally {
    await runtime.close();
    await model.close();
  }
}
