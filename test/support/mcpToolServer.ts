import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { selfSignedCertificate } from './httpsReceiver.ts';

export interface McpToolServer {
  /** `https://127.0.0.1:<port>/mcp` */
  url: string;
  caFile: string;
  /** Each tools/call as the server took it: the tool, its arguments and its `_meta`. */
  calls: { name: string; arguments: unknown; meta: Record<string, unknown> | undefined }[];
  /** The Authorization header of every request. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A real MCP server, built with the MCP SDK's own server and its Streamable HTTP transport
 * (stateless, JSON answers), over HTTPS on loopback, wanting `Bearer <token>`. Its tools: a
 * lookup, a refund that answers an error for amounts over 100, and one no block allows.
 */
export async function startMcpToolServer(token: string): Promise<McpToolServer> {
  const { key, cert, caFile } = selfSignedCertificate();
  const calls: McpToolServer['calls'] = [];
  const authorizations: McpToolServer['authorizations'] = [];
  const toolsServer = () => {
    const server = new McpServer({ name: 'orders', version: '1.0.0' });
    server.registerTool('lookup_order', { description: 'An order by its id', inputSchema: { id: z.string() } }, async (args, extra) => {
      calls.push({ name: 'lookup_order', arguments: args, meta: extra._meta as Record<string, unknown> | undefined });
      return { content: [{ type: 'text', text: JSON.stringify({ id: args.id, status: 'shipped', total: 42 }) }] };
    });
    server.registerTool('refund_order', { description: 'Refund an order', inputSchema: { id: z.string(), amount: z.number() } }, async (args, extra) => {
      calls.push({ name: 'refund_order', arguments: args, meta: extra._meta as Record<string, unknown> | undefined });
      if (args.amount > 100) return { isError: true, content: [{ type: 'text', text: 'refunds over 100 need a manager' }] };
      return { content: [{ type: 'text', text: `refunded ${args.amount} on ${args.id}` }] };
    });
    server.registerTool('delete_everything', { description: 'Not for models', inputSchema: {} }, async () => {
      calls.push({ name: 'delete_everything', arguments: {}, meta: undefined });
      return { content: [{ type: 'text', text: 'gone' }] };
    });
    return server;
  };
  const https = createServer({ key, cert }, (req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${token}`) return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
    if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const server = toolsServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(body));
    });
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(https.address() as AddressInfo).port}/mcp`,
    caFile,
    calls,
    authorizations,
    close: () => new Promise((resolve) => https.close(() => resolve())),
  };
}
