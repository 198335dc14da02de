/** A minimal server-sent-events reader over fetch, for tests: frames as they arrive, comments included. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: unknown;
  comment?: string;
}

export interface SseConnection {
  status: number;
  contentType: string | null;
  /** Resolves with the next frame, or undefined when the stream ended. */
  next(): Promise<SseFrame | undefined>;
  /** Every frame until the stream ends. */
  rest(): Promise<SseFrame[]>;
  close(): void;
  json?: unknown;
}

export async function openSse(url: string, init: RequestInit): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const contentType = response.headers.get('content-type');
  if (!contentType?.startsWith('text/event-stream')) {
    const json = await response.json();
    return { status: response.status, contentType, json, next: async () => undefined, rest: async () => [], close: () => undefined };
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: SseFrame[] = [];
  let ended = false;

  const parse = () => {
    let index: number;
    while ((index = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
      }
      if (frame.event || frame.comment) frames.push(frame);
    }
  };

  const next = async (): Promise<SseFrame | undefined> => {
    for (;;) {
      if (frames.length > 0) return frames.shift();
      if (ended) return undefined;
      try {
        const { value, done } = await reader.read();
        if (done) ended = true;
        else {
          buffer += decoder.decode(value, { stream: true });
          parse();
        }
      } catch {
        ended = true;
      }
    }
  };

  return {
    status: response.status,
    contentType,
    next,
    async rest() {
      const all: SseFrame[] = [];
      for (let frame = await next(); frame; frame = await next()) all.push(frame);
      return all;
    },
    close: () => controller.abort(),
  };
}
