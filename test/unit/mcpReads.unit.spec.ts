import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ReadNeed } from '../../src/database/readRouting.ts';
import { createMcpServer } from '../../src/api/mcp/mcpServer.ts';
import type { ToolContext } from '../../src/api/mcp/toolContext.ts';
import { readsAfterChanges } from '../../src/api/readsAfterChanges.ts';

/**
 * The assistant's tools and read replicas (src/api/mcp/mcpServer.ts): a reading tool runs within a
 * read's need, after the caller's own last change; a writing tool that succeeds is such a change.
 * The services are stand-ins that say what they were asked; the routing is the real one's contract.
 */
describe('MCP tools and where they read', () => {
  /** One process's memory of changes, over a routing that records each read's need. */
  const processReads = (needs: ReadNeed[], appended: { position: number }) =>
    readsAfterChanges({ appendedPosition: () => appended.position, reads: { within: (need, read) => (needs.push(need), read()) } });

  async function connect(caller: string, reads: ReturnType<typeof processReads>, appended: { position: number }) {
    const ctx = {
      services: {
        authoring: {
          listProjects: async () => [],
          resolveProject: async () => 'project-1',
          createFlow: async () => ({ flowId: 'flow-1', slug: 'triage', position: appended.position }),
        },
        reads,
        waitForPosition: async () => undefined,
        logger: pino({ level: 'silent' }),
      },
      scope: { organizationIds: ['org-1'] },
      metadata: { principal: { kind: 'user', id: caller } },
      runLimiter: {},
    } as unknown as ToolContext;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ctx, '0.0.0', { readOnly: false }).connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  it("reads before any change anywhere; after the caller's change, only after it; a write itself is not a read", async () => {
    const needs: ReadNeed[] = [];
    const appended = { position: 7 };
    const client = await connect('alice', processReads(needs, appended), appended);
    expect((await client.callTool({ name: 'list_projects', arguments: {} })).isError).toBeFalsy();
    expect(needs).toEqual([{ after: 0, projections: expect.arrayContaining(['jobs', 'runs']) }]);

    appended.position = 42;
    expect(await client.callTool({ name: 'create_flow', arguments: { project_id: 'project-1', name: 'Triage', slug: 'triage' } })).toMatchObject({ structuredContent: { flow_id: 'flow-1' } });
    expect(needs).toHaveLength(1);
    await client.callTool({ name: 'list_projects', arguments: {} });
    expect(needs.at(-1)).toMatchObject({ after: 42 });
    await client.close();
  });

  it("keeps each caller's changes to their own reads", async () => {
    const needs: ReadNeed[] = [];
    const appended = { position: 42 };
    const reads = processReads(needs, appended);
    const alice = await connect('alice', reads, appended);
    const bob = await connect('bob', reads, appended);
    await alice.callTool({ name: 'create_flow', arguments: { project_id: 'project-1', name: 'Triage', slug: 'triage' } });
    await bob.callTool({ name: 'list_projects', arguments: {} });
    expect(needs.at(-1)).toMatchObject({ after: 0 });
    await alice.callTool({ name: 'list_projects', arguments: {} });
    expect(needs.at(-1)).toMatchObject({ after: 42 });
    await alice.close();
    await bob.close();
  });
});
