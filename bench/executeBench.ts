import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { type ChildProcess, fork } from 'node:child_process';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };

/** Waits for the next message of the load process. */
const nextMessage = <T>(child: ChildProcess) =>
  new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`load process exited (${code})`)));
  });

/**
 * Sync /execute of a three-block flow (code -> passthrough -> llm) over real HTTP, with the scripted
 * model server answering at once: what is measured is the service (auth, lookup, sandbox, events,
 * the openai client), not a model. The model server and the load generator run in a separate
 * process (executeLoadProcess.ts), so they do not compete for the service's event loop.
 */
export async function benchExecute(databaseUrl: string) {
  const loader = fork(new URL('./executeLoadProcess.ts', import.meta.url), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { baseUrl } = await nextMessage<{ baseUrl: string }>(loader);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    OPENAI_BASE_URL: baseUrl,
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
  const agent = { name: 'agent', processor_type: 'llm', model: 'gpt-4o-mini', prompt: '{{message}}', processor_config: { tools_enabled: true, max_tool_iterations: 1000 } };
  await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'agent', name: 'Tool loop', steps: [{ block: agent }] }, production: true }, principal);
  const { key } = await createApiKey(deps, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  await runtime.projections.start();
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/seq/bench/bench/three/execute`;
  const run = async (concurrency: number, total: number) => {
    loader.send({ type: 'load', url, key, concurrency, total, blocks: steps.length });
    const reply = await nextMessage<{ type: 'result'; result: unknown } | { type: 'error'; message: string }>(loader);
    if (reply.type === 'error') throw new Error(reply.message);
    return reply.result;
  };

  const toolLoop = async (rounds: number) => {
    loader.send({ type: 'toolLoop', url: url.replace('/three/execute', '/agent/execute'), key, rounds });
    const reply = await nextMessage<{ type: 'result'; result: unknown } | { type: 'error'; message: string }>(loader);
    if (reply.type === 'error') throw new Error(reply.message);
    return reply.result;
  };

  try {
    return {
      flow: 'code -> passthrough -> llm (scripted model, zero latency)',
      c1: await run(1, 300),
      c32: await run(32, 1500),
      // Resume calls that each end in the next pause (the model always asks for one more tool call).
      pauseResumeRoundTrip: await toolLoop(200),
    };
  } finally {
    loader.send({ type: 'stop' });
    await app.close();
    await runtime.close();
  }
}
