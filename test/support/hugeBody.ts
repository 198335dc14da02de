import type { ServerResponse } from 'node:http';

/**
 * The most a reader capped at 1 MiB may have let a sender write: its cap, plus what the kernel's
 * socket buffers take on loopback without the reader reading (the sender's up to net.ipv4.tcp_wmem's
 * 4 MiB, and the receiver's autotuned share). 4 MiB in all was once the bound; a CI machine sent
 * 4.06 MiB before the reader hung up. Still far below the 30 MB bodies the tests send.
 */
export const CAPPED_READ_SENT_BOUND = 8 * (1 << 20);

/**
 * Answers `res` with a body of `bytes` (spaces), written as fast as the reader takes it and no
 * further once it hangs up: `sent.bytes` says how much of it went out, which is how a test proves a
 * reader stopped at its cap rather than reading it all.
 */
export function streamHugeBody(res: ServerResponse, bytes: number, sent: { bytes: number } = { bytes: 0 }, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1 << 16, 0x20);
  const more = () => {
    while (sent.bytes < bytes && !res.destroyed) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
  return sent;
}
