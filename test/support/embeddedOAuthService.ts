import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type Runtime, openRuntime } from '../../src/runtime/runtime.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import type { MemberRole } from '../../src/domain/organizations/memberRole.ts';
import { createTestRuntime, freePort, serveApi, type TestRuntime, testPrincipal } from './testRuntime.ts';

export interface EmbeddedOAuthService {
  t: TestRuntime;
  /** The public URL (`http://127.0.0.1:<port>`): the embedded issuer is at `<origin>/oauth`. */
  origin: string;
  mcpUrl: string;
  close(): Promise<void>;
}

/**
 * The API on the embedded OAuth default (no OAUTH_ISSUER), at a public URL known before it starts,
 * with its own data folder, organization `acme` with `members`, and project `web`.
 */
export async function startEmbeddedOAuthService(label: string, members: Record<string, MemberRole>, env: Record<string, string> = {}): Promise<EmbeddedOAuthService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `seqflow-${label}-`));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestRuntime(label, { SEQFLOW_PUBLIC_URL: origin, SEQFLOW_DATA_DIR: dataDir, ...env });
  await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal);
  for (const [userSubject, role] of Object.entries(members)) await addMember(t.runtime.commands, { organizationSlug: 'acme', userSubject, role }, testPrincipal);
  await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
  await t.runtime.projections.catchUp();
  const { app } = await serveApi(t.runtime, port);
  return {
    t,
    origin,
    mcpUrl: `${origin}/api/v1/mcp/`,
    async close() {
      await app.close();
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Another API process of the same service: its own runtime and server on `port`, with the same
 * database, master key and public URL (a load balancer would send it the public URL's traffic).
 */
export async function startApiProcess(service: EmbeddedOAuthService, port: number): Promise<{ runtime: Runtime; origin: string; close(): Promise<void> }> {
  const runtime = await openRuntime(
    loadConfig({ DATABASE_URL: service.t.database.url, SEQFLOW_MASTER_KEY: service.t.runtime.masterKey.toString('base64'), SEQFLOW_PUBLIC_URL: service.origin, SEQFLOW_DEMO: 'false' }),
    pino({ level: 'silent' }),
  );
  const { app } = await serveApi(runtime, port);
  return {
    runtime,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
