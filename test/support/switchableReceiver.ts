import { createServer as createHttpsServer } from 'node:https';
import { type Socket, createServer as createTcpServer } from 'node:net';
import type { ServerResponse } from 'node:http';
import { selfSignedCertificate } from './httpsReceiver.ts';

/**
 * What the receiver does with what reaches it: `answer` 200 at once; `hold-answer` reads the whole
 * POST and never answers (a worker dies after its request went out); `black-hole` takes the TCP
 * connection and never starts TLS (a worker dies after recording the attempt, before any byte of
 * the POST was sent).
 */
export type ReceiverMode = 'answer' | 'hold-answer' | 'black-hole';

export interface SwitchableReceiver {
  url: string;
  caFile: string;
  /** Every POST read whole: its delivery id header and the execution it is about. */
  received: { deliveryId: string; executionId: string }[];
  /** Connections taken in black-hole mode so far. */
  swallowed: () => number;
  setMode(mode: ReceiverMode): void;
  close(): Promise<void>;
}

/** A real HTTPS webhook receiver on loopback whose behaviour a fault test switches between modes. */
export async function startSwitchableReceiver(initial: ReceiverMode = 'answer'): Promise<SwitchableReceiver> {
  const { key, cert, caFile } = selfSignedCertificate();
  let mode = initial;
  const received: SwitchableReceiver['received'] = [];
  const held = new Set<Socket>();
  const pending = new Set<ServerResponse>();
  let swallowed = 0;
  const https = createHttpsServer({ key, cert }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ deliveryId: String(req.headers['x-service-delivery']), executionId: (JSON.parse(body) as { executionId: string }).executionId });
      if (mode === 'hold-answer') pending.add(res);
      else res.writeHead(200).end('ok');
    });
  });
  const tcp = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    if (mode === 'black-hole') swallowed++;
    else https.emit('connection', socket);
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `https://127.0.0.1:${(tcp.address() as { port: number }).port}`,
    caFile,
    received,
    swallowed: () => swallowed,
    setMode: (next) => void (mode = next),
    async close() {
      for (const res of pending) res.destroy();
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
