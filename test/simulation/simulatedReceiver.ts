import type { SeededRandom } from './seededRandom.ts';

const encoder = new TextEncoder();

/**
 * What receivers' error pages hold in the world: NUL bytes, bytes that are not UTF-8, an emoji
 * across the 512-byte excerpt, a lone surrogate's bytes, right-to-left text and combining marks, and
 * a body without end (read only as far as the excerpt goes).
 */
const HOSTILE_BODIES: (() => Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>)[] = [
  () => encoder.encode('<html>Internal\u0000Server Error</html>'),
  () => new Uint8Array([0x3c, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]),
  () => encoder.encode(`${'a'.repeat(510)}😀😀 after the cut`),
  () => new Uint8Array([0x45, 0x72, 0x72, 0xed, 0xa0, 0x80, 0x21]), // U+D800 as CESU bytes: no UTF-8
  () => encoder.encode(`${'שגיאה\u202e'.repeat(40)}e\u0301\u0308${'\u0300'.repeat(200)}`),
  () =>
    new ReadableStream<Uint8Array<ArrayBuffer>>({
      pull(controller) {
        controller.enqueue(encoder.encode('\u0000garbage without end '.repeat(64)));
      },
    }),
  () => encoder.encode(''),
];

/** A connection-level failure whose message is itself hostile text. */
const networkError = () => new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET \u0000 from 203.0.113.9 \ud800'), { code: 'ECONNRESET' }) });

export interface Post {
  deliveryId: string;
  /** The delivery stream's revision when the POST was made: the start it belongs to is the last one before it. */
  revision: number;
  status: number | 'network_error' | 'timeout';
  signature: string;
  timestamp: number;
  body: string;
}

/**
 * Receivers as the seed draws them, reached through the outbound guard's `fetch`: each POST answered
 * 2xx, a retryable 5xx/429/408 with a hostile page, a permanent 4xx, a reset or a timeout. Every POST
 * is kept, with the delivery stream's revision at that moment (`revisionOf`), for the invariants.
 */
export function simulatedReceiver(random: SeededRandom, revisionOf: (deliveryId: string) => Promise<number>) {
  const posts: Post[] = [];
  async function fetch(_input: string | URL | Request, init?: RequestInit): Promise<Response> {
    await Promise.resolve();
    const headers = new Headers(init?.headers);
    const deliveryId = headers.get('x-service-delivery') ?? '';
    const post = { deliveryId, revision: await revisionOf(deliveryId), signature: headers.get('x-service-signature') ?? '', timestamp: Number(headers.get('x-service-timestamp')), body: String(init?.body) };
    const draw = random.next();
    if (draw < 0.08) {
      posts.push({ ...post, status: 'network_error' });
      throw networkError();
    }
    if (draw < 0.14) {
      posts.push({ ...post, status: 'timeout' });
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    }
    const status = draw < 0.45 ? 200 : draw < 0.5 ? random.pick([400, 404, 410, 301]) : random.pick([500, 502, 503, 429, 408]);
    posts.push({ ...post, status });
    return new Response(random.pick(HOSTILE_BODIES)(), { status, headers: { 'content-type': 'text/html' } });
  }
  return { fetch, posts };
}
