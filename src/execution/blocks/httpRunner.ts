import { HTTP_TIMEOUT_DEFAULT_MS } from '../../domain/blocks/http/httpConfig.ts';
import { renderRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { requestIdempotencyKey } from '../../domain/blocks/http/requestIdempotencyKey.ts';
import { storableText } from '../../domain/text/storableText.ts';
import { unstorableJson } from '../../domain/validation/storableJson.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { BlockStep } from './blockRunner.ts';
import type { SentRequest } from './httpSend.ts';
import { noteStepFailed } from './localStep.ts';
import { AttemptFailed, exchange } from './requestExchange.ts';
import { requestSecrets, secretsMissing } from './requestSecrets.ts';

/** How much of a response an http block reads: more fails the step (HTTP_RESPONSE_TOO_LARGE). */
export const HTTP_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * How an `http` block runs (its rules: src/domain/blocks/http/): its request rendered from the run's
 * context (its secrets decrypted only to send it), sent by exchange() (requestExchange.ts: the
 * guard, the one retry policy, each attempt an event with its URL and excerpt sealed and its
 * secrets redacted), and the answer the step's output: JSON (checked against the
 * block's output schema) or text. A request that is not a GET carries the same Idempotency-Key on
 * every attempt, and on the attempts of a worker that takes the job over.
 */
export async function runHttpBlock(step: BlockStep): Promise<unknown> {
  const { session, block, context, stepIndex, iteration } = step;
  const { deps, run } = session;
  const config = block.processor_config ?? {};
  const ref = { executionId: run.executionId, stepIndex, blockId: block.id, blockName: block.name, iteration };
  const exchangeRef = { ...ref, toolCallId: null, toolName: null };
  // Publishing refuses an http block without a request; a version is never run without one.
  const template = config.request;
  if (!template) throw new BlockFailure('HTTP_REQUEST_INVALID', 'the block has no request');
  // Everything recorded or shown of the exchange passes through `redact` first.
  const { secrets, redact, missing } = await requestSecrets(session, template);
  const rendered = renderRequest(template, context, secrets);
  const input = 'problem' in rendered ? { method: template.method, url: template.url } : { method: rendered.method, url: redact.text(rendered.url), headers: redact.json(rendered.headers), body: rendered.body ?? null };
  run.recorder.note({ type: 'ExecutionStepStarted', data: { ...ref, processorType: 'http', input, missingPlaceholders: 'problem' in rendered ? [] : rendered.missing } });
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    if (missing.length > 0) throw secretsMissing(`block '${block.name}'`, missing);
    if ('problem' in rendered) throw new BlockFailure('HTTP_REQUEST_INVALID', 'the request cannot be sent as rendered', { detail: redact.text(rendered.problem) });
    const key = rendered.method === 'GET' ? null : requestIdempotencyKey({ executionId: run.executionId, stepIndex, blockName: block.name, iteration, call: 'request' });
    const { sent, attempts } = await exchange(session, exchangeRef, rendered, { idempotencyKey: key, timeoutMs: config.timeout_ms ?? HTTP_TIMEOUT_DEFAULT_MS, maxBytes: HTTP_MAX_RESPONSE_BYTES, expectStatus: config.expect_status, redact, elapsed });
    const output = redact.json(outputOf(sent, config.response_format ?? 'json'));
    const mismatch = block.output_schema ? deps.http.validators.problems(block.output_schema, output) : null;
    if (mismatch) throw new BlockFailure('HTTP_RESPONSE_INVALID', 'the response does not match the block\'s output schema', { detail: redact.text(mismatch) });
    run.recorder.note({ type: 'ExecutionStepCompleted', data: { ...ref, output, model: null, usage: null, durationMs: elapsed(), attempts, validationErrors: [] } });
    return output;
  } catch (error) {
    const failure = error instanceof AttemptFailed ? new BlockFailure(error.verdict.code, error.verdict.message, { detail: error.sent.excerpt }) : error;
    if (failure instanceof BlockFailure) noteStepFailed(run, ref, failure, elapsed());
    throw failure;
  }
}

/** The response as the step's output: its JSON (strings made storable; an empty body, a 204's, is null), or its text. */
function outputOf(sent: SentRequest, format: 'json' | 'text'): unknown {
  const text = storableText(new TextDecoder().decode(sent.body ?? Buffer.alloc(0)));
  if (format === 'text') return text;
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BlockFailure('HTTP_RESPONSE_INVALID', 'the response is not JSON', { detail: (error as Error).message });
  }
  const stored = storableStrings(value);
  const unstorable = unstorableJson(stored, 'response');
  if (unstorable) throw new BlockFailure('HTTP_RESPONSE_INVALID', 'the response cannot be kept as the step\'s output', { detail: unstorable.message });
  return stored;
}

/** JSON whose strings a `\u0000` escape or a lone surrogate would keep out of the log, made storable. */
const storableStrings = (value: unknown): unknown =>
  typeof value === 'string' ? storableText(value) : Array.isArray(value) ? value.map(storableStrings) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableStrings(v)])) : value;
