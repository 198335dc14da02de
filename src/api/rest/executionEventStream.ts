import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionEvent } from '../../domain/execution/executionEvents.ts';
import { executionStream } from '../../domain/execution/executionEvents.ts';
import { emptyRunHistory, evolveRunHistory } from '../../domain/execution/runHistory.ts';
import { decodeRecorded } from '../../eventstore/decodeRecorded.ts';
import type { PauseData } from '../../execution/pauseData.ts';
import type { Runtime } from '../../runtime/runtime.ts';

/**
 * Server-sent events of one run, read from its stream in the log: each SSE `id` is the event's
 * revision in `execution-<id>`, so a client reconnects with Last-Event-ID and misses nothing. The
 * stream ends after `completed`, `failed` or `step_paused_for_tool_calls`. A client that goes away
 * stops only its stream, never the run. After the first read, only events newer than the last one
 * seen are read.
 */
interface SseEvent {
  event: string;
  data: unknown;
}

const TERMINAL = new Set(['ExecutionCompleted', 'ExecutionFailed', 'ExecutionPausedForToolCalls']);
const POLL_MS = 250;

function toSse(event: ExecutionEvent, context: { flowId: string; blockCount: number }, pause: PauseData | undefined, accumulated: Record<string, unknown>): SseEvent | undefined {
  switch (event.type) {
    case 'ExecutionRequested': {
      const d = event.data;
      return { event: 'started', data: { executionId: d.executionId, flowId: d.flowId, versionId: d.versionId, versionNumber: d.versionNumber, blockCount: d.blockCount } };
    }
    case 'ExecutionResumed':
      return { event: 'resumed', data: { executionId: event.data.executionId, pausedAtStep: event.data.blockName, iterationsUsed: event.data.iterationsUsed } };
    case 'ExecutionStepStarted': {
      const d = event.data;
      return { event: 'step_started', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, processorType: d.processorType } };
    }
    case 'ExecutionStepCompleted': {
      const d = event.data;
      return { event: 'step_completed', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, output: d.output, model: d.model, usage: d.usage, durationMs: d.durationMs } };
    }
    case 'ExecutionPausedForToolCalls': {
      const d = event.data;
      const toolCalls = d.toolCalls.map((c) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } }));
      return {
        event: 'step_paused_for_tool_calls',
        data: pause
          ? { status: 'tool_calls_required', ...pause }
          : // The log keeps only the conversation's digest; a reader in another process gets no messages.
            { status: 'tool_calls_required', executionId: d.executionId, pausedAtStep: d.blockName, iterationsUsed: d.iterationsUsed, toolCallMessages: null, toolCalls, accumulatedOutputs: accumulated },
      };
    }
    case 'ExecutionCompleted':
      return { event: 'completed', data: { status: 'completed', executionId: event.data.executionId, result: event.data.result, flowId: context.flowId, blockCount: context.blockCount } };
    case 'ExecutionFailed': {
      const d = event.data;
      return { event: 'failed', data: { executionId: d.executionId, code: d.code, message: d.message, failureReason: d.reason, step_name: d.blockName } };
    }
    default:
      return undefined; // CreditsConsumed, JobClaimed: accounting facts, not progress
  }
}

export async function streamExecution(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  run: {
    executionId: string;
    afterRevision: number;
    flowId: string;
    blockCount: number;
    /** The run in this process, when this stream started it: if it dies without a terminal event, the stream says so and ends. */
    outcome?: Promise<unknown>;
  },
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
  let crashed: { code: string; message: string } | undefined;
  run.outcome?.catch((error: unknown) => {
    crashed = { code: 'INTERNAL', message: (error as { code?: string }).code === 'INTERNAL' ? (error as Error).message : 'internal error' };
    runtime.execution.updates.notify(run.executionId);
  });
  // Backpressure: a client that reads slowly holds this loop, not an ever-growing buffer.
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
  }, runtime.config.execution.sseKeepAliveMs);
  await write('retry: 2000\n\n');

  let after = run.afterRevision;
  // The first read starts at the beginning: a replayed pause carries the outputs of earlier blocks.
  let readFrom = 0;
  // The run's history, folded as events arrive: a replayed pause carries the outputs of earlier blocks.
  let history = emptyRunHistory();
  let ended = false;
  try {
    while (!closed.signal.aborted) {
      const events = await runtime.eventStore.readStream(executionStream(run.executionId), { fromRevision: readFrom });
      for (const recorded of events) {
        readFrom = recorded.revision + 1;
        ended = TERMINAL.has(recorded.type);
        const event = decodeRecorded(recorded) as ExecutionEvent;
        history = evolveRunHistory(history, { event, occurredAt: recorded.metadata.occurredAt });
        if (recorded.revision <= after) continue;
        const pause = event.type === 'ExecutionPausedForToolCalls' ? runtime.execution.updates.pause(run.executionId) : undefined;
        const sse = toSse(event, run, pause, { ...history.outputs });
        if (sse) await write(`id: ${recorded.revision}\nevent: ${sse.event}\ndata: ${JSON.stringify(sse.data)}\n\n`);
        after = recorded.revision;
        if (TERMINAL.has(recorded.type)) return;
      }
      if (ended) return; // reconnected after the run's last event: nothing more will come
      if (crashed && events.length === 0) {
        // The run died without recording its end (the log itself failed): say so rather than keep the client waiting.
        await write(`event: failed\ndata: ${JSON.stringify({ executionId: run.executionId, code: crashed.code, message: crashed.message, failureReason: 'error', step_name: null })}\n\n`);
        return;
      }
      await runtime.execution.updates.wait(run.executionId, POLL_MS, closed.signal);
    }
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}
