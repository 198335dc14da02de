import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { StepEvent } from './types.ts';

const TERMINAL = new Set(['completed', 'failed', 'step_paused_for_tool_calls']);

/** The events of one SSE answer, parsed. */
async function* eventsOf(response: Response): AsyncGenerator<StepEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield { event: value.event ?? 'message', id: value.id ?? '', data: JSON.parse(value.data) as unknown } as StepEvent;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * A `/step` run's events until it completes, fails or pauses for tool calls. When the connection
 * drops before that, it reconnects (`reconnect`, with the id of the last event it got as
 * `Last-Event-ID`) up to `maxReconnects` times, waiting a little longer each time: the server
 * sends what came after that id from the run's log, then the live events, so nothing is lost or repeated.
 */
export async function* stepEvents(
  first: Response,
  reconnect: (executionId: string, lastEventId: string | undefined) => Promise<Response>,
  options: { executionId?: string; maxReconnects?: number; delayMs?: number },
): AsyncGenerator<StepEvent> {
  let executionId = options.executionId;
  let lastEventId: string | undefined;
  let response = first;
  for (let attempt = 0; ; attempt++) {
    try {
      for await (const event of eventsOf(response)) {
        if (event.id) lastEventId = event.id;
        executionId ??= (event.data as { executionId?: string }).executionId;
        yield event;
        if (TERMINAL.has(event.event)) return;
      }
    } catch (error) {
      if (attempt >= (options.maxReconnects ?? 5) || executionId === undefined) throw error;
    }
    if (executionId === undefined) throw new Error('the step stream ended before the run started');
    if (attempt >= (options.maxReconnects ?? 5)) throw new Error(`the step stream of ${executionId} ended before the run did, ${attempt} reconnects later`);
    await new Promise((resolve) => setTimeout(resolve, (options.delayMs ?? 250) * 2 ** attempt));
    response = await reconnect(executionId, lastEventId);
  }
}
