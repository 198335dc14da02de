import { randomUUID } from 'node:crypto';
import { startBacktest } from '../src/backtests/backtestRunner.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { prepareExecution } from '../src/execution/flowEngine.ts';
import { startScriptedModelServer } from '../test/support/scriptedModelServer.ts';
import { openBenchRuntime } from './benchRuntime.ts';
import { withDeadline } from './deadline.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const RECORDED = 1000;
const RECORDING_CONCURRENCY = 32;
/** Every wait of this section ends by then, saying what it waited for. */
const DEADLINE_MS = 600_000;

/**
 * A backtest of 1,000 recorded production runs of a two-block flow (code -> llm with an output
 * schema), the model answering at once: the runs are recorded first through the engine, as
 * /execute records them; then the backtest replays each on the production version at the default
 * concurrency (8) and at the most (32), comparing every answer. Pairs per second, and the time from
 * the start (choosing the runs and recording BacktestStarted) to the first compared pair.
 */
export async function benchBacktest(databaseUrl: string) {
  const model = await startScriptedModelServer();
  model.respond = () => ({ content: { verdict: 'fine', score: 7 } });
  const runtime = await openBenchRuntime(databaseUrl, model.baseUrl);
  try {
    const deps = runtime.commands;
    await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
    await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
    const schema = { type: 'object', properties: { verdict: { type: 'string' }, score: { type: 'integer' } }, required: ['verdict', 'score'] };
    const steps = [
      { block: { name: 'prep', processor_type: 'code', code: 'return { text: input.message.trim() };' } },
      { block: { name: 'judge', processor_type: 'llm', prompt: 'Judge: {{previous_output.text}}', output_schema: schema } },
    ];
    const { flowId } = await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'judged', name: 'Judged', steps }, production: true }, principal);
    await runtime.projections.catchUp();
    const flow = await runtime.db.selectFrom('flows').select(['organization_id', 'project_id', 'production_version_id']).where('id', '=', flowId).executeTakeFirstOrThrow();
    const versionId = flow.production_version_id!;
    const versionSteps = await runtime.flows.versionSteps(versionId);

    const recordingStarted = performance.now();
    let next = 0;
    await withDeadline(
      Promise.all(
        Array.from({ length: RECORDING_CONCURRENCY }, async () => {
          while (next < RECORDED) {
            const i = next++;
            const prepared = await prepareExecution(runtime.execution, {
              executionId: randomUUID(), flowId, versionId, versionNumber: 1, organizationId: flow.organization_id, projectId: flow.project_id, steps: versionSteps,
              message: `essay ${i}`, parameters: {}, attachments: [], tools: undefined, mode: 'sync', apiKeyId: null, principal: principal.principal,
            });
            const outcome = await prepared.start();
            if (outcome.status !== 'completed') throw new Error(`a recorded bench run ${outcome.status}`);
          }
        }),
      ),
      DEADLINE_MS, 'recording the production runs',
    );
    const recordingSeconds = (performance.now() - recordingStarted) / 1000;
    await withDeadline(runtime.projections.catchUp(), DEADLINE_MS, 'the runs read model catching up');

    const measure = async (concurrency: number) => {
      const started = performance.now();
      let firstMs: number | null = null;
      const backtest = await startBacktest(runtime.execution, {}, { flowId, version: 1, selection: { kind: 'last', count: RECORDED }, concurrency }, principal);
      const startedMs = performance.now() - started;
      const report = await withDeadline(
        backtest.run(() => (firstMs ??= performance.now() - started)),
        DEADLINE_MS,
        `the backtest at concurrency ${concurrency}`,
      );
      const seconds = (performance.now() - started) / 1000;
      if (report.summary.same !== RECORDED) throw new Error(`the bench backtest found changes: ${JSON.stringify(report.summary)}`);
      return { concurrency, pairs: report.summary.total, same: report.summary.same, seconds: Number(seconds.toFixed(2)), pairsPerSecond: Number((report.summary.total / seconds).toFixed(1)), startMs: Math.round(startedMs), firstResultMs: Math.round(firstMs ?? 0) };
    };
    const atDefault = await measure(8);
    const atMost = await measure(32);
    return { recordedRuns: RECORDED, recordingRunsPerSecond: Number((RECORDED / recordingSeconds).toFixed(1)), concurrency8: atDefault, concurrency32: atMost };
  } finally {
    await runtime.close();
    await model.close();
  }
}
