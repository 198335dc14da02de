import { buildServer } from '../src/api/rest/server.ts';
import { openBenchRuntime, seedBenchProject } from './benchRuntime.ts';
import { startLoadProcess } from './loadClient.ts';

const flows = {
  // Nothing to stream: what `token` events may not cost.
  pass: [{ block: { name: 'relay', processor_type: 'passthrough' } }],
  three: [
    { block: { name: 'prepare', processor_type: 'code', code: 'return input.message.trim();' } },
    { block: { name: 'relay', processor_type: 'passthrough' } },
    { block: { name: 'answer', processor_type: 'llm', model: 'gpt-4o-mini', prompt: 'Answer: {{previous_output}}' } },
  ],
};

/**
 * `/step` over real HTTP, each request read to the stream's end (the run's `completed`): a
 * passthrough flow (nothing streams) and a code -> passthrough -> llm flow whose reply the scripted
 * model streams to the reader as `token` events. The load generator and the model run in a process
 * of their own.
 */
export async function benchStep(databaseUrl: string) {
  const loader = await startLoadProcess();
  const runtime = await openBenchRuntime(databaseUrl, loader.modelBaseUrl);
  const key = await seedBenchProject(runtime, flows);
  await runtime.projections.start();
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const stepUrl = (slug: keyof typeof flows) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/${slug}/step`;
  const step = (slug: keyof typeof flows, concurrency: number, total: number) => loader.load({ url: stepUrl(slug), key, concurrency, total, status: 200 });
  try {
    return {
      passthrough: { c1: await step('pass', 1, 400), c16: await step('pass', 16, 2000) },
      threeBlocksStreamed: { c1: await step('three', 1, 300), c16: await step('three', 16, 1500) },
    };
  } finally {
    await loader.stop();
    await app.close();
    await runtime.close();
  }
}
