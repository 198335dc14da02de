import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { buildServer } from '../src/api/rest/server.ts';
import { addBlock, createFlow, publishDraft } from '../src/authoring/flowAuthoring.ts';
import { addMember, createOrganization } from '../src/commands/organizationCommands.ts';
import { importFlow } from '../src/commands/flowCommands.ts';
import { createProject } from '../src/commands/projectCommands.ts';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';
import { addTestCase } from '../src/testing/testCases.ts';
import { startJwksIssuer } from '../test/support/jwksIssuer.ts';
import { freePort } from '../test/support/testRuntime.ts';
import { percentile } from './percentile.ts';

const principal = { principal: { kind: 'system' as const, id: 'bench' } };
const FLOWS = 50;
const HYDRATE_CALLS = 200;
const HYDRATE_CONCURRENCY = 8;
const DRAFT_UPDATES = 300;
const FLOW_RUNS = 300;

/**
 * The assistant endpoint over real HTTP with the SDK's client: `hydrate_project` on a project of 50
 * flows (4 blocks, a version and 2 test cases each), calls per second at concurrency 1 and 8; and
 * the latency of `update_block_draft` (an event appended, then answered once the read models show
 * it), p50/p99 over 300 sequential edits; and `run_flow` of a one-block (passthrough) flow's
 * production version, answered with its result, p50/p99 over 300 sequential runs.
 */
export async function benchMcp(databaseUrl: string) {
  const issuer = await startJwksIssuer();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), OAUTH_ISSUER: issuer.issuer, OAUTH_JWKS_URL: issuer.jwksUrl, SEQFLOW_PUBLIC_URL: origin, LOG_LEVEL: 'silent', SEQFLOW_MCP_RUNS_PER_MINUTE: '100000', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  const runtime = await openRuntime(config, pino({ level: 'silent' }));
  const app = await buildServer(runtime);
  const clients: Client[] = [];
  try {
    const deps = runtime.commands;
    await createOrganization(deps, { slug: 'bench', name: 'Bench' }, principal);
    await addMember(deps, { organizationSlug: 'bench', userSubject: 'assistant', role: 'member' }, principal);
    const project = await createProject(deps, { organizationSlug: 'bench', slug: 'bench', name: 'Bench' }, principal);
    let editable = { flowId: '', blockId: '' };
    for (let i = 0; i < FLOWS; i++) {
      const { flowId } = await createFlow(deps, {}, { projectId: project.id, name: `Flow ${i}`, slug: `flow-${i}` }, principal);
      let previous = await addBlock(deps, {}, { flowId, name: 'prep', processor_type: 'code', code: 'return { text: input.message };' }, principal);
      for (const name of ['draft', 'review', 'polish']) {
        previous = await addBlock(deps, {}, { flowId, name, processor_type: 'llm', prompt: `${name}: {{previous_output.text}} ${'context '.repeat(60)}`, targetId: previous.blockId, direction: 'right' }, principal);
      }
      await publishDraft(deps, {}, { flowId, note: 'bench' }, principal);
      for (const n of [1, 2]) await addTestCase(deps, {}, { flowId, definition: { name: `case ${n}`, input: { message: 'm' }, assertions: [{ type: 'max_tokens', value: 100 }] } }, principal);
      editable = { flowId, blockId: previous.blockId };
    }
    const echo = await importFlow(deps, { organizationSlug: 'bench', projectSlug: 'bench', file: { slug: 'echo', name: 'Echo', steps: [{ block: { name: 'echo', processor_type: 'passthrough' } }] }, production: true }, principal);
    await runtime.projections.catchUp();
    await runtime.projections.start();
    await app.listen({ host: '127.0.0.1', port });

    const mcpUrl = `${origin}/api/v1/mcp/`;
    const token = await issuer.sign({ sub: 'assistant', aud: mcpUrl, expiresIn: '1h' });
    const connect = async () => {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    };
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result;
    };

    const first = await connect();
    const sample = await call(first, 'hydrate_project', { project_id: project.id });
    const hydrateBytes = Buffer.byteLength((sample.content[0] as { text: string }).text);

    const hydrateRate = async (concurrency: number) => {
      const pool = await Promise.all(Array.from({ length: concurrency }, () => connect()));
      let next = 0;
      const started = performance.now();
      await Promise.all(pool.map(async (client) => {
        while (next++ < HYDRATE_CALLS) await call(client, 'hydrate_project', { project_id: project.id });
      }));
      return Number((HYDRATE_CALLS / ((performance.now() - started) / 1000)).toFixed(1));
    };
    const hydrate1 = await hydrateRate(1);
    const hydrate8 = await hydrateRate(HYDRATE_CONCURRENCY);

    const latencies: number[] = [];
    for (let i = 0; i < DRAFT_UPDATES; i++) {
      const started = performance.now();
      await call(first, 'update_block_draft', { flow_id: editable.flowId, step_id: editable.blockId, content: `polish, take ${i}: {{previous_output}}` });
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);

    const runLatencies: number[] = [];
    for (let i = 0; i < FLOW_RUNS; i++) {
      const started = performance.now();
      const run = await call(first, 'run_flow', { flow_id: echo.flowId, input: { message: `run ${i}` } });
      runLatencies.push(performance.now() - started);
      if ((run.structuredContent as { status?: string } | undefined)?.status !== 'completed') throw new Error(`run_flow answered ${JSON.stringify(run.structuredContent)}`);
    }
    runLatencies.sort((a, b) => a - b);
    const ms = (value: number) => Number(value.toFixed(1));
    return {
      hydrateProject: { flows: FLOWS, blocksPerFlow: 4, resultBytes: hydrateBytes, callsPerSecond1Client: hydrate1, [`callsPerSecond${HYDRATE_CONCURRENCY}Clients`]: hydrate8 },
      updateBlockDraft: { edits: DRAFT_UPDATES, p50Ms: ms(percentile(latencies, 50)), p99Ms: ms(percentile(latencies, 99)), maxMs: ms(latencies.at(-1) ?? 0) },
      runFlowOneBlock: { runs: FLOW_RUNS, p50Ms: ms(percentile(runLatencies, 50)), p99Ms: ms(percentile(runLatencies, 99)), maxMs: ms(runLatencies.at(-1) ?? 0) },
    };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await app.close();
    await runtime.close();
    await issuer.close();
  }
}
