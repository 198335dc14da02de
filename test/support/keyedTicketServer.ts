import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KeyedTicketServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every POST's Idempotency-Key, in the order they arrived. */
  posts: { key: string | undefined }[];
  /** The tickets filed, by key: one per key, however often it is sent. */
  tickets: Map<string, string>;
  close(): Promise<void>;
}

/**
 * A ticketing server that honours Idempotency-Keys (Stripe's semantics): a ticket is filed when a
 * request arrives, answered or not, once per key. Its first request is held unanswered, so a test
 * can kill the worker waiting on it; later ones are answered 201 with the ticket and the subject.
 */
export async function startKeyedTicketServer(): Promise<KeyedTicketServer> {
  const posts: KeyedTicketServer['posts'] = [];
  const tickets = new Map<string, string>();
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const key = req.headers['idempotency-key'] as string | undefined;
      posts.push({ key });
      if (key && !tickets.has(key)) tickets.set(key, `T-${tickets.size + 1}`);
      if (posts.length === 1) return void held.push(res);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ticket: key ? tickets.get(key) : 'T-unkeyed', subject: JSON.parse(body).subject }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    tickets,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
