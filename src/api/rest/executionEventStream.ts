import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RecordedEvent } from '../../eventstore/eventStore.ts';
import { executionStream } from '../../domain/execution/executionEvents.ts';
import { setOwn } from '../../domain/ownProperty.ts';
import { executionUpdates } from '../../execution/executionUpdates.ts';
import type { PauseData } from '../../execution/flowEngine.ts';
import type { Runtime } from '../../runtime/runtime.ts';

/**
 * Server-sent events of one run, read from its stream in the log: each SSE `id` is the event's
 * revision in `execution-<id>`, so a client reconnects with Last-Event-ID and misses nothing. The
 * stream ends after `completed`, `failed` or `step_paused_for_tool_calls`. A client that goes away
 * stops only its stream, never the run.
 */
interface SseEvent {
  event: string;
  data: unknown;
}

const TERMINAL = new Set(['ExecutionCompleted', 'ExecutionFailed', 'ExecutionPausedForToolCalls']);
const POLL_MS = 250;

function toSse(recorded: RecordedEvent, context: { flowId: string; blockCount: number }, pause: PauseData | undefined, accumulated: Record<string, unknown>): SseEvent | undefined {
  const d = recorded.data as Record<string, unknown>;
  switch (recorded.type) {
    case 'ExecutionRequested':
      return { event: 'started', data: { executionId: d.executionId, flowId: d.flowId, versionId: d.versionId, versionNumber: d.versionNumber, blockCount: d.blockCount } };
    case 'ExecutionResumed':
      return { event: 'resumed', data: { executionId: d.executionId, pausedAtStep: d.blockName, iterationsUsed: d.iterationsUsed } };
    case 'ExecutionStepStarted':
      return { event: 'step_started', data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, processorType: d.processorType } };
    case 'ExecutionStepCompleted':
      return {
        event: 'step_completed',
        data: { executionId: d.executionId, stepIndex: d.stepIndex, blockId: d.blockId, blockName: d.blockName, iteration: d.iteration, output: d.output, model: d.model, usage: d.usage, durationMs: d.durationMs },
      };
    case 'ExecutionPausedForToolCalls': {
      const toolCalls = (d.toolCalls as { id: string; name: string; arguments: string }[]).map((c) => ({ id: c.id, function: { name: c.name, arguments: c.arguments } }));
      return {
        event: 'step_paused_for_tool_calls',
        data: pause ?? {
          status: 'tool_calls_required',
          executionId: d.executionId,
          pausedAtStep: d.blockName,
          iterationsUsed: d.iterationsUsed,
          // The log keeps only the conversation's digest; a reader in another process gets no messages.
          toolCallMessages: null,
          toolCalls,
          accumulatedOutputs: accumulated,
        },
      };
    }
    case 'ExecutionCompleted':
      return { event: 'completed', data: { status: 'completed', executionId: d.executionId, result: d.result, flowId: context.flowId, blockCount: context.blockCount } };
    case 'ExecutionFailed':
      return { event: 'failed', data: { executionId: d.executionId, code: d.code, message: d.message, failureReason: d.reason, step_name: d.blockName } };
    default:
      return undefined; // CreditsConsumed: an accounting fact, not progress
  }
}

export async function streamExecution(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  run: { executionId: string; afterRevision: number; flowId: string; blockCount: number },
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
  const write = (text: string) => {
    if (!closed.signal.aborted) response.write(text);
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), runtime.config.execution.sseKeepAliveMs);
  write('retry: 2000\n\n');

  let after = run.afterRevision;
  const accumulated: Record<string, unknown> = {};
  try {
    while (!closed.signal.aborted) {
      const events = await runtime.eventStore.readStream(executionStream(run.executionId));
      for (const recorded of events) {
        if (recorded.type === 'ExecutionStepCompleted') {
          const d = recorded.data as { blockName: string; iteration: number | null; output: unknown };
          if (d.iteration === null) setOwn(accumulated, d.blockName, d.output);
        }
        if (recorded.revision <= after) continue;
        const pause = recorded.type === 'ExecutionPausedForToolCalls' ? executionUpdates.pause(run.executionId) : undefined;
        const sse = toSse(recorded, run, pause && { status: 'tool_calls_required', ...pause } as PauseData, { ...accumulated });
        if (sse) write(`id: ${recorded.revision}\nevent: ${sse.event}\ndata: ${JSON.stringify(sse.data)}\n\n`);
        after = recorded.revision;
        if (TERMINAL.has(recorded.type)) return;
      }
      // Reconnected after the run's last event: nothing more will come.
      const last = events.at(-1);
      if (last && TERMINAL.has(last.type) && last.revision <= after) return;
      await executionUpdates.wait(run.executionId, POLL_MS, closed.signal);
    }
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}
