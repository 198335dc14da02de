import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors/apiError.ts';

/** A tool's answer: the structured result, and the same as compact JSON text for clients that read only text. */
export function toolSuccess<T extends Record<string, unknown>>(structured: T): CallToolResult & { structuredContent: T } {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * A business failure is a tool result the model reads and acts on, never a protocol error:
 * `CODE: message`, then a hint naming what to do (for an unknown step id, the valid ones).
 * Anything else is logged with an id the text quotes.
 */
export function toolFailure(error: unknown, logger: Logger, hint?: string): CallToolResult {
  if (error instanceof ApiError) {
    return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}${hint ? `\nHint: ${hint}` : ''}` }] };
  }
  const errorId = randomUUID();
  logger.error({ err: error, errorId }, 'assistant tool failed');
  return { isError: true, content: [{ type: 'text', text: `INTERNAL: internal error (quote ${errorId}); try again later` }] };
}
