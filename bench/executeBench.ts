import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { startScriptedModelServer } from '../test/support/scriptedModelServer.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * Sync /execute of a three-block flow (code -> passthrough -> llm) over real HTTP, with the scripted
 * model server answering at once: what is measured is the service (auth, lookup, sandbox, events,
 * the openai client), not a model.
 */
export async function benchExecute(databaseUrl: string) {
  const model = await startScriptedModelServer();
  model.respond = () => ({ content: { summary: 'ok' }, usage: { prompt_tokens: 20, completion_tokens: 5 } });
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'bench',
    SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SEQFLOW_DEFAULT_CREDITS: '1000000000',
    LOG_LEVEL: 'silent',
  });
  const runtime = await openRuntime(config, pino({ level: 'silent' }));
  const deps = runtime.commands;
  await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  const steps = [
    { block: { name: 'prepare', processor_type: 'code', code: 'return { text: input.message.trim(), words: input.message.split(" ").length };' } },
    { block: { name: 'relay', processor_type: 'passthrough' } },
    {
      block: {
        name: 'summarise',
        processor_type: 'llm',
        model: 'gpt-4o-mini',
        prompt: 'Summarise in one line ({{previous_output.words}} words): {{previous_output.text}}',
        output_schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false },
      },
    },
  ];
  await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'three', name: 'Three blocks', steps }, production: true }, principal);
  const { key } = await createApiKey(deps, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  await runtime.projections.start();
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/three/execute`;
  const call = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'The quick brown fox jumps over the lazy dog' }),
    });
    if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };

  const run = async (concurrency: number, total: number) => {
    for (let i = 0; i < Math.min(20, total); i++) await call(); // warm-up: sandbox worker, connections, plans
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < total) {
          const t0 = performance.now();
          await call();
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    return {
      concurrency,
      executions: total,
      executionsPerSecond: round(total / seconds),
      p50Ms: round(p50),
      p99Ms: round(percentile(latencies, 99)),
      // The model answers at once, so the whole latency is the service's own work; per block:
      overheadPerBlockP50Ms: round(p50 / steps.length, 2),
    };
  };

  try {
    return { flow: 'code -> passthrough -> llm (scripted model, zero latency)', c1: await run(1, 300), c32: await run(32, 1500) };
  } finally {
    await app.close();
    await runtime.close();
    await model.close();
  }
}
