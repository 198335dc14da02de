import { buildServer } from '../src/api/rest/server.ts';
import { SLOW_MODEL, SLOW_MODEL_DELAY_MS } from './benchModel.ts';
import { openBenchRuntime, seedBenchProject } from './benchRuntime.ts';
import { startInsertRoute } from './insertRoute.ts';
import { startLoadProcess } from './loadClient.ts';
import { statementsDuring } from './queryCounter.ts';
import { memoryOverRuns } from './memoryBench.ts';

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const summary = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false };
export const EXECUTE_FLOWS = {
  pass: [{ block: { name: 'relay', processor_type: 'passthrough' } }],
  three: [
    { block: { name: 'prepare', processor_type: 'code', code: 'return { text: input.message.trim(), words: input.message.split(" ").length };' } },
    { block: { name: 'relay', processor_type: 'passthrough' } },
    { block: { name: 'summarise', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Summarise in one line ({{previous_output.words}} words): {{previous_output.text}}', output_schema: summary } },
  ],
  agent: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 1000 } } }],
  slow: [{ block: { name: 'answer', processor_type: 'llm', model: SLOW_MODEL, prompt: '{{message}}' } }],
};

/**
 * Sync /execute over real HTTP against the scripted model server (at once, or after a second on the
 * slow flow): what is measured is the service (auth, lookups, sandbox, events, the openai client),
 * compared in the same run with a Fastify route that commits one INSERT per request. The load
 * generator and the model server run in a process of their own.
 */
export async function benchExecute(databaseUrl: string) {
  const loader = await startLoadProcess();
  const runtime = await openBenchRuntime(databaseUrl, loader.modelBaseUrl);
  const key = await seedBenchProject(runtime, EXECUTE_FLOWS);
  await runtime.projections.start();
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const insertRoute = await startInsertRoute(databaseUrl);
  const flowUrl = (slug: keyof typeof EXECUTE_FLOWS) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/${slug}/execute`;
  const execute = (slug: keyof typeof EXECUTE_FLOWS, concurrency: number, total: number, warmUp?: number) => loader.load({ url: flowUrl(slug), key, concurrency, total, status: 200, warmUp });

  try {
    const insert = await loader.load({ url: insertRoute.url, key, concurrency: 32, total: 4000, status: 200 });
    // At c32, with the statements sent per run (the service and its projections, this process).
    const c32 = async (slug: 'pass' | 'three', total: number) => {
      const { result, perUnit } = await statementsDuring(total, () => execute(slug, 32, total));
      return { ...result, statementsPerRun: perUnit };
    };
    const passthrough = { c1: await execute('pass', 1, 500), c32: await c32('pass', 3000) };
    const threeBlocks = { c1: await execute('three', 1, 300), c32: await c32('three', 1500) };
    // Resume calls that each end in the next pause (the model always asks for one more tool call),
    // one at a time, 5 per run as a tool loop goes: compared with passthrough /execute at concurrency 1.
    const toolLoop = await loader.toolLoop(flowUrl('agent'), key, 61, 5);
    const slow = await slowModelAt500(() => execute('slow', 500, 2500, 1));
    return {
      insertRouteC32: insert,
      passthrough: { ...passthrough, c32ToInsertRoute: round(passthrough.c32.perSecond / insert.perSecond) },
      threeBlocks: { flow: 'code -> passthrough -> llm (zero latency)', ...threeBlocks, c32ToInsertRoute: round(threeBlocks.c32.perSecond / insert.perSecond) },
      pauseResumeRoundTrip: { ...toolLoop, passthroughC1P99Ms: passthrough.c1.p99Ms, overheadP99Ms: round(toolLoop.p99Ms - passthrough.c1.p99Ms, 1) },
      slowModelC500: slow,
      memory: await memoryOverRuns((runs) => execute('pass', 32, runs, 0)),
    };
  } finally {
    await loader.stop();
    await insertRoute.close();
    await app.close();
    await runtime.close();
  }
}

/** One llm block whose model answers after a second, 500 calls at once: 500 runs/s is the ideal. */
async function slowModelAt500(run: () => Promise<{ perSecond: number; p50Ms: number; p99Ms: number }>) {
  let maxRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, process.memoryUsage().rss)), 100);
  try {
    const figures = await run();
    const ideal = 500 / (SLOW_MODEL_DELAY_MS / 1000);
    return { modelDelayMs: SLOW_MODEL_DELAY_MS, ...figures, idealPerSecond: ideal, ratioToIdeal: round(figures.perSecond / ideal), serverMaxRssMiB: Math.round(maxRss / 2 ** 20) };
  } finally {
    clearInterval(sampler);
  }
}
