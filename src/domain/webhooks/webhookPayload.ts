import type { FailureReason, WebhookEventName } from '../execution/executionEvents.ts';

/** Spec section 6, Payload; plus `deliveryId`, so the signed bytes bind the idempotency key. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

export interface WebhookPayload {
  event: WebhookEventName;
  deliveryId: string;
  executionId: string;
  flowId: string;
  organizationId: string;
  durationMs: number;
  occurredAt: string;
  result?: unknown;
  errorMessage?: string;
  failureReason?: FailureReason;
  truncated: boolean;
}

export type RunEnding =
  | { event: 'flow.completed'; result: unknown }
  | { event: 'flow.failed'; errorMessage: string; failureReason: FailureReason };

/**
 * The body of a delivery. A `flow.completed` body over 256 KB has its `result` replaced by
 * `{truncated: true, sizeBytes, fetchFrom}`, where `fetchFrom` is the job-polling path that returns
 * the full output, and `truncated` is true.
 */
export function webhookPayload(
  base: Omit<WebhookPayload, 'truncated' | 'event' | 'result' | 'errorMessage' | 'failureReason'>,
  ending: RunEnding,
  jobPath: string,
): { payload: WebhookPayload; body: string } {
  const full: WebhookPayload =
    ending.event === 'flow.completed'
      ? { event: ending.event, ...base, result: ending.result ?? null, truncated: false }
      : { event: ending.event, ...base, result: null, errorMessage: ending.errorMessage, failureReason: ending.failureReason, truncated: false };
  const body = JSON.stringify(full);
  const size = Buffer.byteLength(body, 'utf8');
  if (size <= MAX_WEBHOOK_BODY_BYTES || ending.event !== 'flow.completed') return { payload: full, body };
  const truncated: WebhookPayload = { ...full, result: { truncated: true, sizeBytes: Buffer.byteLength(JSON.stringify(ending.result), 'utf8'), fetchFrom: jobPath }, truncated: true };
  return { payload: truncated, body: JSON.stringify(truncated) };
}
