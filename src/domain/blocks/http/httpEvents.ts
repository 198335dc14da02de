import { z } from 'zod';
import { defineEvent, type EventOf } from '../../events/eventDefinition.ts';
import { operational, personal } from '../../privacy/dataClass.ts';
import { aHash, aName } from '../../privacy/operationalText.ts';
import { blockRef } from '../../execution/blockRef.ts';
import { HTTP_METHODS } from './httpConfig.ts';

/** How one attempt of a request went: an answer (any status), or none (why). */
export const httpOutcomes = ['response', 'timeout', 'network_error', 'blocked_address', 'too_large'] as const;
export type HttpOutcome = (typeof httpOutcomes)[number];

/**
 * One attempt of an http block's request, or of an llm block's http server tool (issue 61; v2 names
 * the tool call, v1 attempts were all a block's own request), in the run's stream, noted with the step's end:
 * what was sent where and what came back. The URL and the answer's excerpt may hold the run's data
 * (a customer's address in a path, a CRM's record), so they are sealed under the run's key and gone
 * with an erasure; the method, status, timing and the Idempotency-Key (a digest of the run's id, the
 * step and the call) are not the run's data.
 */
export const HttpRequestAttempted = defineEvent(
  'HttpRequestAttempted',
  2,
  z.object({
    ...blockRef,
    /** The server tool's call this attempt answers (the model's id for it), or null: the block's own request. */
    toolCallId: operational(z.string().nullable(), "the model provider's id of a tool call: names the call, says nothing of a person"),
    toolName: aName().nullable(),
    attempt: z.number().int().min(1),
    method: z.enum(HTTP_METHODS),
    url: personal(z.string(), ''),
    idempotencyKey: aHash().nullable(),
    outcome: z.enum(httpOutcomes),
    status: z.number().int().nullable(),
    excerpt: personal(z.string().nullable(), null),
    /** When the attempt began, from the step's start: where it sits on the run's waterfall. */
    startMs: operational(z.number().int().min(0), 'a duration: how long the service took'),
    durationMs: operational(z.number().int().min(0), 'a duration: how long the request took'),
  }),
);

/**
 * An llm block's server tool (an http tool, or a remote MCP server's) was called (issue 61): the model's arguments and what it was answered
 * (a response, or why there was none: a refused argument, a failed request), in the run's stream,
 * noted with the step's end. Both may hold the run's data (a customer's record): sealed.
 */
export const ServerToolCalled = defineEvent(
  'ServerToolCalled',
  1,
  z.object({
    ...blockRef,
    /** Which model turn of the step asked for it (1: the first). */
    round: z.number().int().min(1),
    toolCallId: operational(z.string(), "the model provider's id of a tool call: names the call, says nothing of a person"),
    toolName: aName(),
    toolType: z.enum(['http', 'mcp']),
    arguments: personal(z.string(), ''),
    /** What the model was given back, as it was given (capped). */
    result: personal(z.string(), ''),
    ok: z.boolean(),
    durationMs: operational(z.number().int().min(0), 'a duration: how long the call took'),
  }),
);

export type HttpBlockEvent = EventOf<typeof HttpRequestAttempted> | EventOf<typeof ServerToolCalled>;
