import type { Logger } from 'pino';
import { type AttemptDependencies, UnreadableSecretsError, attemptDelivery } from './deliveryAttempt.ts';
import type { AttemptFailures } from './attemptFailures.ts';
import type { DeliveryClaims } from './deliveryClaims.ts';

/**
 * One attempt of a leased delivery, its lease renewed while the attempt goes on (a receiver slower
 * than the lease never gets a second, concurrent attempt), then settled: finished; given back when
 * the attempt did not happen; given back after the retry policy's delay when it failed to run (never
 * claimable at once after a failure: the decider's start cap ends a delivery that keeps failing).
 */
export async function attemptAndSettle(deps: AttemptDependencies, claims: Pick<DeliveryClaims, 'settle' | 'giveBackAfter' | 'renew'>, failures: AttemptFailures, logger: Logger, id: string, leaseMs: number, admitted?: () => void) {
  // Admitted when claimed: the attempt does not ask its host again, and the slot is given back here.
  const attemptDeps = admitted ? { ...deps, admit: undefined } : deps;
  const renew = setInterval(() => void claims.renew(id).catch((error: unknown) => logger.warn({ err: error, deliveryId: id }, 'could not renew delivery lease')), Math.max(50, Math.floor(leaseMs / 3)));
  renew.unref();
  let finished: number | undefined;
  let failedToRun = false;
  try {
    finished = await attemptDelivery(attemptDeps, id);
    failures.succeeded(id);
  } catch (error) {
    failedToRun = !(error instanceof UnreadableSecretsError);
    if (error instanceof UnreadableSecretsError) failures.unreadable(error);
    else logger.error({ err: error, deliveryId: id }, 'delivery attempt failed to run');
  } finally {
    clearInterval(renew);
    admitted?.();
  }
  const settled = failedToRun ? claims.giveBackAfter(id, failures.failed(id)) : claims.settle(id, finished);
  await settled.catch(() => undefined);
}
