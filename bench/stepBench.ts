import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startLoadProcess } from './loadClient.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
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
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    OPENAI_BASE_URL: loader.modelBaseUrl,
    OPENAI_API_KEY: 'bench',
    SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SEQFLOW_DEFAULT_CREDITS: '1000000000',
    LOG_LEVEL: 'silent',
  });
  const runtime = await openRuntime(config, pino({ level: 'silent' }));
  const deps = runtime.commands;
  await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  for (const [slug, steps] of Object.entries(flows)) await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug, name: slug, steps }, production: true }, principal);
  const { key } = await createApiKey(deps, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
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
