import { describe, expect, it } from 'vitest';
import { ReplyTooLargeError, cappedReplies } from '../../src/outbound/cappedReply.ts';

/** A reply streamed in `chunks` of `size` bytes, with no Content-Length (as a chunked answer arrives). */
const streamed = (chunks: number, size: number, pulled: { count: number }) => async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled.count === chunks) return controller.close();
        pulled.count += 1;
        controller.enqueue(new Uint8Array(size));
      },
    }),
  );

describe('model replies read up to a byte limit', () => {
  it('passes a reply within the limit through unchanged', async () => {
    const fetch = cappedReplies(async () => new Response('{"ok":true}', { status: 201, headers: { 'x-request-id': 'r1' } }), 1024);
    const reply = await fetch('https://models.example/v1/chat/completions');
    expect([reply.status, reply.headers.get('x-request-id'), await reply.json()]).toEqual([201, 'r1', { ok: true }]);
  });

  it('fails the read of a streamed reply once it passes the limit, and stops pulling from the source', async () => {
    const pulled = { count: 0 };
    const reply = await cappedReplies(streamed(1000, 1024, pulled), 10 * 1024)('https://models.example/');
    await expect(reply.text()).rejects.toBeInstanceOf(ReplyTooLargeError);
    // The chunk that passed the limit, and at most the stream's read-ahead after it: never the whole reply.
    expect(pulled.count).toBeLessThan(20);
  });

  it('fails at once a reply whose Content-Length is past the limit', async () => {
    const reply = await cappedReplies(async () => new Response('x'.repeat(2048), { headers: { 'content-length': '2048' } }), 1024)('https://models.example/');
    await expect(reply.arrayBuffer()).rejects.toMatchObject({ name: 'ReplyTooLargeError', limitBytes: 1024 });
  });
});
