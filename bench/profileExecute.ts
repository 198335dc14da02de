/**
 * `npm run bench:profile`: where an /execute run's time goes, by default a three-block run's. The service of the execute bench
 * (code -> passthrough -> llm, the scripted model answering at once, the load in a process of its
 * own) under /execute at concurrency 32, with the V8 CPU profiler on in the service's process for
 * the measured window only (the load, then until the projections have applied its events). Prints JSON: the runs per second while profiled, the CPU per run of the
 * service, of PostgreSQL and of the rest of the machine, the SQL statements it sent per run, and its self time grouped by where the code lives (our modules by folder, each
 * dependency by package, Node's own internals, the garbage collector, idle), plus the top
 * functions. The profile itself is written to test-output/three-blocks.cpuprofile.
 * `PROFILE_FLOW=passthrough` profiles a one-block passthrough flow instead, `PROFILE_FLOW=slow-llm`
 * one llm block whose model answers after a second, at concurrency 500, and `PROFILE_FLOW=tool-loop`
 * the execute bench's pause -> resume round trips, one at a time, with where each one's time went
 * from the service's own histograms (test-output/<flow>.cpuprofile). `PROFILE_SEALING=off` runs the
 * service with run data unsealed, to compare with what sealing adds (bench/erasureCostBench.ts).
 */
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { openBenchRuntime } from './benchRuntime.ts';
import { openBenchDatabases } from './benchDatabases.ts';
import { withDeadline } from './deadline.ts';
import { startProfiledWindow } from './profiledWindow.ts';
import { startLoadProcess } from './loadClient.ts';
import { SLOW_MODEL } from './benchModel.ts';
import { histogramMeans } from './histogramMeans.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 3000);
const summary = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false };
const three = [
  { block: { name: 'prepare', processor_type: 'code', code: 'return { text: input.message.trim(), words: input.message.split(" ").length };' } },
  { block: { name: 'relay', processor_type: 'passthrough' } },
  { block: { name: 'summarise', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Summarise in one line ({{previous_output.words}} words): {{previous_output.text}}', output_schema: summary } },
];

// Each with the concurrency the execute bench runs it at.
const flows = {
  'three-blocks': { steps: three, concurrency: 32 },
  passthrough: { steps: [{ block: { name: 'relay', processor_type: 'passthrough' } }], concurrency: 32 },
  'slow-llm': { steps: [{ block: { name: 'answer', processor_type: 'llm', model: SLOW_MODEL, prompt: '{{message}}' } }], concurrency: 500 },
  // As the execute bench's pause -> resume figure: every resume ends in the next pause.
  'tool-loop': { steps: [{ block: { name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 1000 } } }], concurrency: 1 },
};
const ROUNDS_PER_RUN = 5;
const flowName = (process.env.PROFILE_FLOW ?? 'three-blocks') as keyof typeof flows;
if (!(flowName in flows)) throw new Error(`PROFILE_FLOW must be one of ${Object.keys(flows).join(', ')} (it is ${flowName})`);

const databases = await openBenchDatabases();
const loader = await startLoadProcess();
const runtime = await openBenchRuntime(await databases.create('profile'), loader.modelBaseUrl, { sealRunData: process.env.PROFILE_SEALING !== 'off' });
let window: Awaited<ReturnType<typeof startProfiledWindow>> | undefined;
try {
  const deps = runtime.commands;
  await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'three', name: flowName, steps: flows[flowName].steps }, production: true }, principal);
  const { key } = await createApiKey(deps, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  await runtime.projections.start();
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/three/execute`;
  // Warm: the sandbox pool, the JIT, the connection pools.
  await loader.load({ url, key, concurrency: 32, total: 500, status: 200 });

  const histograms = ['seqflow_http_request_duration_seconds', 'seqflow_event_append_duration_seconds', 'seqflow_model_call_duration_seconds', 'seqflow_step_duration_seconds'];
  const before = await histogramMeans(runtime.metrics.registry, histograms);
  window = await startProfiledWindow();
  // The tool loop's units are its resumes (each run also has the fresh call that pauses first).
  const runs = Math.ceil(REQUESTS / ROUNDS_PER_RUN);
  const units = flowName === 'tool-loop' ? runs * ROUNDS_PER_RUN : REQUESTS;
  const load: Promise<unknown> =
    flowName === 'tool-loop' ? loader.toolLoop(url, key, runs, ROUNDS_PER_RUN) : loader.load({ url, key, concurrency: flows[flowName].concurrency, total: REQUESTS, status: 200, warmUp: 0 });
  const figures = await withDeadline(load, 600_000, 'the profiled load');
  // The runs' read-model work is theirs too: the window ends once the projections have applied them.
  const drainStarted = performance.now();
  await runtime.projections.waitForPosition(await runtime.eventStore.headPosition(), 600_000);
  const projectionDrainMs = Math.round(performance.now() - drainStarted);
  const measured = await window.stop(units, flowName);
  // Means over the window, per histogram: what a request, an append, a model call and a step took.
  const means = (await histogramMeans(runtime.metrics.registry, histograms, before)).map(({ name, count, meanMs }) => ({ name, count, meanMs }));
  process.stdout.write(`${JSON.stringify({ flow: flowName, units, load: figures, projectionDrainMs, histogramMeans: means, ...measured }, null, 2)}\n`);
  await app.close();
} finally {
  window?.disconnect();
  await loader.stop();
  await runtime.close();
  await databases.dropAll();
}
process.exit(0);
