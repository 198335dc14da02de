import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { RETRY_POLICIES, retryDelayMs } from '../domain/retry/retryPolicy.ts';
import type { HealthNotes } from '../health/healthNotes.ts';
import type { UnreadableSecretsError } from './deliveryAttempt.ts';

export const UNREADABLE_SECRETS = 'WEBHOOK_SECRETS_UNREADABLE';

/**
 * A dispatcher's memory of what failed, for the one retry policy: how many times in a row each
 * delivery's attempt failed to run (its lease goes back after the policy's delay), and which
 * organizations' secrets this worker cannot open (their deliveries are not claimed here until the
 * policy's delay has passed, and /health counts them). Both bounded.
 */
export function createAttemptFailures(options: { logger: Logger; healthNotes?: HealthNotes; now?: () => number; random?: () => number }) {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const byDelivery = new LRUCache<string, number>({ max: 10_000 });
  const organizations = new LRUCache<string, { failures: number; until: number }>({ max: 10_000 });
  return {
    /** The delay before the delivery's lease may be claimed again, after one more failure to run. */
    failed(deliveryId: string): number {
      const failures = (byDelivery.get(deliveryId) ?? 0) + 1;
      byDelivery.set(deliveryId, failures);
      return retryDelayMs(RETRY_POLICIES.deliveryAttempt, failures, random());
    },
    succeeded(deliveryId: string) {
      byDelivery.delete(deliveryId);
    },
    unreadable(error: UnreadableSecretsError) {
      const failures = (organizations.get(error.organizationId)?.failures ?? 0) + 1;
      const delayMs = retryDelayMs(RETRY_POLICIES.unreadableSecrets, failures, random());
      organizations.set(error.organizationId, { failures, until: now() + delayMs });
      options.healthNotes?.raise(UNREADABLE_SECRETS, error.organizationId, "this worker's master key cannot open an organization's webhook secret: its deliveries are left to other workers (check SEQFLOW_MASTER_KEY)");
      if (failures === 1 || failures % 10 === 0) options.logger.error({ err: error, organizationId: error.organizationId, retryInMs: delayMs }, 'cannot open the webhook secrets of an organization: its deliveries are not claimed here for now');
    },
    /** This worker opened the organization's secrets: it is no longer skipped, nor reported. */
    readable(organizationId: string) {
      if (!organizations.delete(organizationId)) return;
      options.healthNotes?.clear(UNREADABLE_SECRETS, organizationId);
    },
    /** Organizations whose deliveries this worker does not claim now. */
    skippedOrganizations(): string[] {
      const at = now();
      return [...organizations.entries()].filter(([, o]) => o.until > at).map(([id]) => id);
    },
  };
}

export type AttemptFailures = ReturnType<typeof createAttemptFailures>;
