import { z } from 'zod';
import { templatedJson } from '../../templating/templatedJson.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const HTTP_TIMEOUT_DEFAULT_MS = 10_000;
export const HTTP_TIMEOUT_MAX_MS = 60_000;


/**
 * An http block's `processor_config`: one request (its URL, headers and body are templates over the
 * run's context), the statuses that count as its success (any 2xx unless given), how its response
 * becomes the step's output (JSON unless `text`), and how long it may take.
 */
/** One request as written: its method, and its URL, headers and body as templates. Shared by http blocks and llm blocks' http server tools. */
export const httpRequestTemplate = z.strictObject({
  method: z.enum(HTTP_METHODS),
  url: z.string().min(1).max(8_000),
  headers: z.record(z.string().min(1).max(200), z.string().max(8_000)).optional(),
  body: templatedJson.optional(),
});
export const expectStatus = z.array(z.number().int().min(100).max(599)).min(1).max(50);
export const requestTimeoutMs = z.number().int().min(100).max(HTTP_TIMEOUT_MAX_MS);

export const httpConfigShape = {
  request: httpRequestTemplate.optional(),
  expect_status: expectStatus.optional(),
  response_format: z.enum(['json', 'text']).optional(),
  timeout_ms: requestTimeoutMs.optional(),
};

export type HttpRequestTemplate = z.infer<typeof httpRequestTemplate>;
