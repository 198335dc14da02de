import { redactUrlSecrets } from '../domain/webhooks/excerptRedaction.ts';
import type { Tracer } from '@opentelemetry/api';
import { type CommandDependencies, handleCommand } from '../commands/commandHandler.ts';
import { signingSecrets } from '../commands/webhookSecretCommands.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type DeliveryState, delivery } from '../domain/webhooks/delivery.ts';
import { type DeliveryEndReason, type DeliveryEvent, deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';
import { signatureHeader } from '../domain/webhooks/webhookSignature.ts';
import { SecretUndecryptableError } from '../security/secretBox.ts';
import { loadStream } from '../eventstore/streams.ts';
import { contextOf, failSpan } from '../observability/traceContext.ts';
import type { AddressGuard } from '../outbound/addressGuard.ts';
import type { OrganizationStates } from '../caches/organizationStates.ts';
import { attemptSpan, endAttemptSpan } from './attemptSpan.ts';
import { sendWebhook } from './webhookSender.ts';

/** What one delivery attempt needs: the log, the outbound guard, the signing secrets, the settings. */
export interface AttemptDependencies {
  commands: CommandDependencies;
  guard: AddressGuard;
  masterKey: Buffer;
  /** Where the signing secret is read from (kept in memory while the log watch runs); else the organization's stream each time. */
  organizations?: OrganizationStates;
  /** The principal the attempt's events carry. */
  principal: { kind: 'system'; id: string };
  retryDelaysMs?: readonly number[];
  timeoutMs: number;
  /** Admits an attempt to the delivery's receiver host: its give-back, or undefined when that host has all it may have in flight. */
  admit?: (url: string) => (() => void) | undefined;
  /** Told of every attempt's outcome and seconds (the process's metrics). */
  observeAttempt?: (outcome: string, seconds: number) => void;
  /** Makes a span per attempt, in the trace of the run the delivery is about. */
  tracer: Tracer;
  /** Told that this worker opened an organization's secrets (one it could not open before is readable again). */
  secretsRead?: (organizationId: string) => void;
}

/**
 * Makes one attempt of a delivery this process holds: recorded as started (the decider refuses an
 * attempt that is not due, so a lease never makes a wrong one), signed with a fresh timestamp, sent
 * through the outbound guard (redirects not followed, a bounded excerpt of the answer read), and its
 * outcome recorded. Answers the attempt's number, or undefined when none was due. A process that
 * dies between the two records leaves the delivery in flight: the attempt is made again under the
 * same delivery id once the lease runs out. A delivery whose receiver host is at its bound
 * (`admit`) is not attempted (undefined): its lease goes back and a later sweep takes it. Without
 * `admit`, the caller has admitted it already (a sweep counts what it claims).
 */
export async function attemptDelivery(deps: AttemptDependencies, deliveryId: string): Promise<number | undefined> {
  // Read here rather than in the command, for the trace its first event carries (no second read). A
  // body that cannot be opened is marked, not thrown: the delivery then ends, once (below).
  const loaded = await loadStream(deps.commands.eventStore, deliveryStream(deliveryId), delivery, { unreadable: 'mark' });
  const ending = endingOf(loaded.recorded[0]);
  if (ending !== null && loaded.state.status !== 'none') return endDelivery(deps, deliveryId, ending, loaded);
  // A delivery not in the log is not admitted anywhere: the decider refuses it below.
  const admitted = loaded.state.status === 'none' || !deps.admit ? () => undefined : deps.admit(loaded.state.url);
  if (!admitted) return undefined;
  try {
    return await attemptLoaded(deps, deliveryId, loaded);
  } finally {
    admitted();
  }
}

/**
 * Whether a delivery is to end rather than be attempted: its body (DeliveryCreated's one sealed
 * field) reads as erased, or could not be opened. Nothing of it can be sent: a POST of the erased
 * body would be a signed, empty delivery recorded as delivered.
 */
function endingOf(created: RecordedEvent | undefined): DeliveryEndReason | null {
  if (created?.type !== 'DeliveryCreated') return null;
  if (created.unreadableFields?.includes('body')) return 'data_unreadable';
  return created.erasedFields?.includes('body') ? 'data_erased' : null;
}

/** Records the delivery's end (once: the decider ends only a delivery still to be made). Answers undefined: no attempt was made. */
async function endDelivery(deps: AttemptDependencies, deliveryId: string, reason: DeliveryEndReason, loaded: { state: DeliveryState; revision: number; position: number }): Promise<undefined> {
  await handleCommand(deps.commands, deliveryStream(deliveryId), delivery, { type: 'End', data: { reason, now: deps.commands.now().toISOString() } }, { principal: deps.principal }, loaded);
  deps.observeAttempt?.(reason, 0);
  return undefined;
}

/** This worker's master key cannot open the organization's webhook secrets: terminal for this worker, not for the delivery. */
export class UnreadableSecretsError extends Error {
  readonly organizationId: string;

  constructor(organizationId: string, cause: unknown) {
    super(`this worker cannot open the webhook secrets of organization ${organizationId}: ${(cause as Error).message}`, { cause });
    this.organizationId = organizationId;
    this.name = 'UnreadableSecretsError';
  }
}

async function attemptLoaded(deps: AttemptDependencies, deliveryId: string, loaded: Awaited<ReturnType<typeof loadStream<DeliveryEvent, DeliveryState>>>): Promise<number | undefined> {
  const { commands } = deps;
  const metadata = { principal: deps.principal };
  const stream = deliveryStream(deliveryId);
  // The secrets before anything is recorded: a worker that cannot open them starts no attempt.
  const secrets = loaded.state.status === 'none' ? undefined : await secretsOf(deps, loaded.state.organizationId, metadata);
  let started;
  try {
    started = await handleCommand(commands, stream, delivery, { type: 'StartAttempt', data: { now: commands.now().toISOString(), retryDelaysMs: deps.retryDelaysMs } }, { ...metadata, retryOnConflict: false }, loaded);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'CONFLICT') return undefined; // not due, already done, or someone else's
    throw error;
  }
  const state = started.state;
  // Started too often without an outcome: the decider finished it (internal_error) instead.
  if (state.status !== 'in_flight') return started.events.some((e) => e.type === 'DeliveryAttemptFinished') && state.status !== 'none' ? state.attempts : undefined;
  if (!secrets) return undefined;
  // The body was opened before the start was recorded, and recording it may have waited out the
  // retry policy's backoff: a run erased meanwhile is looked at again, its key read anew, before anything is sent.
  const stillThere = endingOf((await commands.eventStore.readStream(stream, { unreadable: 'mark' }))[0]);
  if (stillThere !== null) return endDelivery(deps, deliveryId, stillThere, started);
  const attemptNumber = state.attempts;
  const timestamp = Math.floor(commands.now().getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Seqflow-Webhook/1.0',
    'x-service-event': state.event,
    'x-service-delivery': deliveryId,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signatureHeader(timestamp, state.body, secrets),
  };
  const begun = performance.now();
  const span = attemptSpan(deps.tracer, contextOf({ traceparent: loaded.recorded[0]?.metadata.traceparent }), { deliveryId, url: state.url, event: state.event, attempt: attemptNumber });
  const sent = await sendWebhook(deps.guard, state.url, headers, state.body, deps.timeoutMs).catch((error: unknown) => {
    failSpan(span, error);
    span.end();
    throw error;
  });
  endAttemptSpan(span, sent.result);
  const { result, excerpt } = sent;
  deps.observeAttempt?.(result.kind === 'response' ? (result.status < 300 ? 'succeeded' : `http_${Math.floor(result.status / 100)}xx`) : result.kind, (performance.now() - begun) / 1000);
  const finish = {
    attempt: attemptNumber,
    start: state.starts,
    result,
    errorExcerpt: (result.kind === 'response' && result.status < 300) || excerpt === null ? null : redactUrlSecrets(excerpt, state.url),
    endedAt: commands.now().toISOString(),
    durationMs: Math.round(performance.now() - begun),
    secretVersions: secrets.versions,
    retryDelaysMs: deps.retryDelaysMs,
  };
  // From the stream as StartAttempt left it: no second read.
  try {
    await handleCommand(commands, stream, delivery, { type: 'FinishAttempt', data: finish }, metadata, started);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'CONFLICT') throw error;
    // The outcome could not be recorded: the worker's failure is recorded as the attempt's outcome
    // instead (it counts toward the retries), so the POST is not made again uncounted.
    const why = `the worker could not record this attempt's outcome (${result.kind === 'response' ? `HTTP ${result.status}` : result.kind}): ${(error as Error).message}`;
    await handleCommand(commands, stream, delivery, { type: 'FinishAttempt', data: { ...finish, result: { kind: 'internal_error' }, errorExcerpt: why } }, metadata, started).catch(() => {
      throw error;
    });
  }
  return attemptNumber;
}

async function secretsOf(deps: AttemptDependencies, organizationId: string, metadata: { principal: AttemptDependencies['principal'] }) {
  try {
    const secrets = await signingSecrets(deps.commands, organizationId, deps.masterKey, metadata, await deps.organizations?.load(organizationId));
    deps.secretsRead?.(organizationId);
    return secrets;
  } catch (error) {
    throw error instanceof SecretUndecryptableError ? new UnreadableSecretsError(organizationId, error) : error;
  }
}
