import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StepEvent } from '../../runs/stepEvents.ts';

/**
 * Sends a run's step events as server-sent events: each SSE `id` is the event's revision in the
 * run's stream (a half for the start a completion tells: followRun.ts), so a client reconnects with
 * Last-Event-ID and misses nothing. A client that goes
 * away stops only its stream (`events` is given the signal), never the run. A client that reads
 * slowly holds the reading, not an ever-growing buffer.
 */
export async function sendServerSentEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  keepAliveMs: number,
  events: (signal: AbortSignal) => AsyncIterable<StepEvent & { id: number | null }>,
): Promise<void> {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const closed = new AbortController();
  request.raw.on('close', () => closed.abort());
  response.on('close', () => closed.abort());
  const write = async (text: string) => {
    if (closed.signal.aborted) return;
    if (!response.write(text)) await new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        closed.signal.removeEventListener('abort', done);
        resolve();
      };
      response.once('drain', done);
      closed.signal.addEventListener('abort', done, { once: true });
    });
  };
  const keepAlive = setInterval(() => {
    if (!closed.signal.aborted && response.writableLength === 0) response.write(': keep-alive\n\n');
  }, keepAliveMs);
  await write('retry: 2000\n\n');
  try {
    for await (const { id, event, data } of events(closed.signal)) {
      await write(`${id === null ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}
