import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildServer } from '../../src/api/rest/server.ts';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';

export { freePort } from './freePort.ts';

export interface TestRuntime {
  runtime: Runtime;
  database: TestDatabase;
  /** Everything the runtime logged, as text: for asserting that no secret is ever logged. */
  logs: () => string;
  close(): Promise<void>;
}

/** A real runtime (PostgreSQL event log, read models, projections) on a database of its own; it logs at `info` unless asked. */
export async function createTestRuntime(label: string, env: Record<string, string> = {}, options: { logLevel?: pino.Level } = {}): Promise<TestRuntime> {
  const database = await createTestDatabase(label);
  const config = loadConfig({
    ...database.service.env,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    SEQFLOW_DEMO: 'false',
    LOG_LEVEL: 'info',
    ...env,
  });
  let captured = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      captured += chunk.toString();
      callback();
    },
  });
  const runtime = await openRuntime(config, pino({ level: options.logLevel ?? 'info' }, sink));
  return {
    runtime,
    database,
    logs: () => captured,
    async close() {
      await runtime.close();
      try {
        await database.service.assertUsed();
      } finally {
        await database.drop();
      }
    },
  };
}

export const testPrincipal = { principal: { kind: 'cli' as const, id: 'test' } };

/** The real HTTP API of a runtime on a loopback port (any free one unless given); `base` ends in /api/v1. */
export async function serveApi(runtime: Runtime, port = 0): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildServer(runtime);
  await app.listen({ host: '127.0.0.1', port });
  return { app, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1` };
}

/** Organization `acme`, project `web`, each flow imported and set to production, and a test API key of the project. */
export async function seedProject(runtime: Runtime, flows: Record<string, unknown[]>): Promise<string> {
  const deps = runtime.commands;
  await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal);
  await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
  for (const [slug, steps] of Object.entries(flows)) await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: { slug, name: slug, steps }, production: true }, testPrincipal);
  return (await createApiKey(deps, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
}
