/** A reply whose body passed its byte limit: read no further, whatever it was. */
export class ReplyTooLargeError extends Error {
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super(`the reply is larger than ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
    this.name = 'ReplyTooLargeError';
  }
}

/** The shape of `fetch` (the global one, the guard's, a capped one). */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` whose replies may hold at most `limitBytes` of body: a declared Content-Length past it,
 * or the bytes counted as they stream in, fail the body's read with ReplyTooLargeError and cancel
 * the transfer, so a runaway reply costs the limit, not the process's memory. The status and
 * headers come through unchanged (the caller decides before it reads the body).
 */
export function cappedReplies(fetch: Fetch, limitBytes: number): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    let received = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (declared > limitBytes) controller.error(new ReplyTooLargeError(limitBytes));
      },
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > limitBytes) controller.error(new ReplyTooLargeError(limitBytes));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
