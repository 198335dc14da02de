import { createServer } from 'node:net';

/** A loopback port free right now: for a server whose public URL (SEQFLOW_PUBLIC_URL) must be known before it starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
