import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { issueLoginCode } from '../src/commands/loginCodeCommands.ts';
import { addMember, createOrganization } from '../src/commands/organizationCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { signInAssistant } from '../test/support/oauthAssistant.ts';
import { freePort } from '../test/support/testRuntime.ts';
import { percentile } from './percentile.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
/** Below the embedded server's 20 registrations a minute from one address. */
const CLIENTS = 15;

/**
 * An assistant meeting the service for the first time, on the embedded authorization server (the
 * default start): from its first request to the MCP endpoint through discovery, dynamic
 * registration, the sign-in page (the member's one-time code, made beforehand, is typed at once),
 * the code exchange and `initialize`, to the result of its first tool call (`list_projects`).
 * Each of 15 clients is new (its own registration); p50/p99.
 */
export async function benchAssistantFirstContact(databaseUrl: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'seqflow-bench-oauth-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), SEQFLOW_PUBLIC_URL: origin, SEQFLOW_DATA_DIR: dataDir, SEQFLOW_DEMO: 'false', LOG_LEVEL: 'silent' });
  const runtime = await openRuntime(config, pino({ level: 'silent' }));
  const app = await buildServer(runtime);
  try {
    await createOrganization(runtime.commands, { slug: 'bench', name: 'Bench' }, principal);
    await addMember(runtime.commands, { organizationSlug: 'bench', userSubject: 'assistant', role: 'member' }, principal);
    await createProject(runtime.commands, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
    await runtime.projections.catchUp();
    await runtime.projections.start();
    await app.listen({ host: '127.0.0.1', port });
    const mcpUrl = `${origin}/api/v1/mcp/`;

    const latencies: number[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const { code } = await issueLoginCode({ ...runtime.commands, db: runtime.db }, { subject: 'assistant' }, principal);
      const started = performance.now();
      const auth = await signInAssistant(mcpUrl, code);
      const client = new Client({ name: `bench-assistant-${i}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth }));
      const result = (await client.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult;
      latencies.push(performance.now() - started);
      await client.close();
      if (result.isError) throw new Error(`list_projects: ${JSON.stringify(result.content)}`);
    }
    latencies.sort((a, b) => a - b);
    const ms = (value: number) => Number(value.toFixed(1));
    return { clients: CLIENTS, p50Ms: ms(percentile(latencies, 50)), p99Ms: ms(percentile(latencies, 99)), maxMs: ms(latencies.at(-1) ?? 0) };
  } finally {
    await app.close();
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
