import type { FailureReason, WebhookEventName } from '../execution/executionEvents.ts';
import type { WaitingFor } from '../execution/waitingFor.ts';

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
  /** A scheduled job's only: the schedule and the firing's time (absent otherwise, so the spec's payload stays as it is). */
  scheduleId?: string;
  scheduledFor?: string;
  result?: unknown;
  /** `flow.waiting` only: what the run waits for (an addition to the spec). */
  waitingFor?: WaitingFor;
  errorMessage?: string;
  failureReason?: WebhookFailureReason;
  truncated: boolean;
}

/** The spec's failure reasons on `flow.failed`: a cancelled run is an `error` whose message says it was cancelled. */
export const webhookFailureReasons = ['error', 'credits_exhausted', 'byok_rejected'] as const satisfies readonly FailureReason[];
export type WebhookFailureReason = (typeof webhookFailureReasons)[number];
const webhookReason = (reason: FailureReason): WebhookFailureReason => (reason === 'cancelled' ? 'error' : reason);

export type RunEnding =
  | { event: 'flow.completed'; result: unknown }
  | { event: 'flow.failed'; errorMessage: string; failureReason: FailureReason }
  /** Not an ending: the run waits for an approval (opt-in; small, never over the cap). */
  | { event: 'flow.waiting'; waitingFor: WaitingFor };

/**
 * The body of a delivery, at most 256 KB. A `flow.completed` body over it has its `result` replaced
 * by `{truncated: true, sizeBytes, fetchFrom}`, where `fetchFrom` is the job-polling path that
 * returns the full output; a `flow.failed` body over it has its `errorMessage` cut, naming the full
 * length. Either way `truncated` is true.
 */
export function webhookPayload(
  base: Omit<WebhookPayload, 'truncated' | 'event' | 'result' | 'errorMessage' | 'failureReason'>,
  ending: RunEnding,
  jobPath: string,
): { payload: WebhookPayload; body: string } {
  if (ending.event === 'flow.waiting') {
    const waiting: WebhookPayload = { event: ending.event, ...base, result: null, waitingFor: ending.waitingFor, truncated: false };
    return { payload: waiting, body: JSON.stringify(waiting) };
  }
  const full: WebhookPayload =
    ending.event === 'flow.completed'
      ? { event: ending.event, ...base, result: ending.result ?? null, truncated: false }
      : { event: ending.event, ...base, result: null, errorMessage: ending.errorMessage, failureReason: webhookReason(ending.failureReason), truncated: false };
  const body = JSON.stringify(full);
  const size = Buffer.byteLength(body, 'utf8');
  if (size <= MAX_WEBHOOK_BODY_BYTES) return { payload: full, body };
  if (ending.event === 'flow.failed') return withMessageCut(full, ending.errorMessage);
  const truncated: WebhookPayload = { ...full, result: { truncated: true, sizeBytes: Buffer.byteLength(JSON.stringify(ending.result), 'utf8'), fetchFrom: jobPath }, truncated: true };
  return { payload: truncated, body: JSON.stringify(truncated) };
}

/** A failure whose message would take the body over the cap: the message cut to fit, naming its full length. */
function withMessageCut(full: WebhookPayload, message: string): { payload: WebhookPayload; body: string } {
  const marker = `… (cut: the message is ${message.length} characters; the job's poll has it whole)`;
  const room = MAX_WEBHOOK_BODY_BYTES - Buffer.byteLength(JSON.stringify({ ...full, errorMessage: marker, truncated: true }), 'utf8');
  // JSON escapes can make a character up to 6 bytes: cut by that bound, then trim until it fits.
  let kept = message.slice(0, Math.max(0, Math.floor(room / 6)));
  for (let step = room; step > 0; step = Math.floor(step / 2)) {
    const longer = message.slice(0, kept.length + step);
    if (Buffer.byteLength(JSON.stringify({ ...full, errorMessage: longer + marker, truncated: true }), 'utf8') <= MAX_WEBHOOK_BODY_BYTES) kept = longer;
  }
  const payload = { ...full, errorMessage: kept + marker, truncated: true };
  return { payload, body: JSON.stringify(payload) };
}
