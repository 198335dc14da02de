import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { type OpenRuntimeOptions, type Runtime, openRuntime } from '../src/runtime/runtime.ts';
import { createApiKey } from '../src/commands/apiKeyCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';

/** A runtime on a bench database whose model is the scripted server at `modelBaseUrl`, credits plenty, logs silent unless BENCH_LOG_LEVEL. */
export function openBenchRuntime(databaseUrl: string, modelBaseUrl: string, options: OpenRuntimeOptions = {}) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    OPENAI_BASE_URL: modelBaseUrl,
    OPENAI_API_KEY: 'bench',
    SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SEQFLOW_DEFAULT_CREDITS: '1000000000',
    LOG_LEVEL: 'silent',
  });
  return openRuntime(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }), 'cli', options);
}

const principal = { principal: { kind: 'system' as const, id: 'bench' } };

/** Organization and project `bench` with `flows` in production, projected, and a test API key of the project. */
export async function seedBenchProject(runtime: Runtime, flows: Record<string, unknown[]>): Promise<string> {
  const deps = runtime.commands;
  await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
  await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
  for (const [slug, steps] of Object.entries(flows)) await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug, name: slug, steps }, production: true }, principal);
  const { key } = await createApiKey(deps, { organizationSlug: 'bench', projectSlug: 'bench', environment: 'test' }, principal);
  await runtime.projections.catchUp();
  return key;
}
