import type { ServerResponse } from 'node:http';

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
