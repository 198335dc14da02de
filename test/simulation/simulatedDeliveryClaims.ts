import type { DeliveryState } from '../../src/domain/webhooks/delivery.ts';
import type { DeliveryClaims } from '../../src/workers/deliveryClaims.ts';

interface Lease {
  owner: string;
  expiresAt: number;
  /** The attempt a finished lease was settled with (see deliveryClaims.ts); null while held or released. */
  finishedAttempts: number | null;
}

/**
 * The delivery leases of src/workers/deliveryClaims.ts in memory, on the simulation's clock: the same
 * claim rule (pending or due, nobody's live lease, a finished attempt not claimed again), the same
 * settle, give-back-after-delay and renew. One table for every simulated process; each process's view
 * (`forProcess`) fails once that process has died.
 */
export function simulatedDeliveryClaims(options: { now: () => number; leaseMs: number }) {
  const leases = new Map<string, Lease>();
  /** Every give-back after a failure to run, with its delay: the invariants check none is "at once". */
  const givenBack: { deliveryId: string; delayMs: number }[] = [];

  const claimable = (id: string, state: DeliveryState, at: number): boolean => {
    if (state.status === 'none') return false;
    const lease = leases.get(id);
    const free = !lease || lease.expiresAt < at;
    const due =
      (state.status === 'pending' && free) ||
      (state.status === 'failed_retry' && state.nextAttemptAt !== null && Date.parse(state.nextAttemptAt) <= at && free) ||
      (state.status === 'in_flight' && lease !== undefined && lease.expiresAt < at && lease.finishedAttempts === null);
    return due && (!lease || lease.finishedAttempts === null || (state.attempts >= lease.finishedAttempts && state.status !== 'in_flight'));
  };

  function forProcess(owner: string, alive: () => boolean): Pick<DeliveryClaims, 'settle' | 'giveBackAfter' | 'renew'> & { claim: (states: Map<string, DeliveryState>, skipOrganizations: string[]) => Promise<string[]> } {
    const check = async () => {
      await Promise.resolve();
      if (!alive()) throw Object.assign(new Error('the process died'), { code: 'ECONNREFUSED' });
    };
    const held = (id: string) => leases.get(id)?.owner === owner;
    return {
      async claim(states, skipOrganizations) {
        await check();
        const at = options.now();
        const ids = [...states].filter(([id, state]) => claimable(id, state, at) && state.status !== 'none' && !skipOrganizations.includes(state.organizationId)).map(([id]) => id);
        for (const id of ids) leases.set(id, { owner, expiresAt: at + options.leaseMs, finishedAttempts: null });
        return ids;
      },
      async settle(id, finishedAttempt) {
        await check();
        const lease = leases.get(id);
        if (lease && held(id)) leases.set(id, { ...lease, expiresAt: options.now() - 1, finishedAttempts: finishedAttempt ?? null });
      },
      async giveBackAfter(id, delayMs) {
        await check();
        givenBack.push({ deliveryId: id, delayMs });
        const lease = leases.get(id);
        if (lease && held(id)) leases.set(id, { ...lease, expiresAt: options.now() + delayMs });
      },
      async renew(id) {
        await check();
        const lease = leases.get(id);
        if (!lease || !held(id)) return false;
        leases.set(id, { ...lease, expiresAt: options.now() + options.leaseMs });
        return true;
      },
    };
  }

  return {
    forProcess,
    givenBack,
    /** Whether a sweep at `at` finds anything to claim among `states`. */
    anyClaimable: (states: Map<string, DeliveryState>, at: number) => [...states].some(([id, state]) => claimable(id, state, at)),
    /** The earliest moment after `at` when a lease runs out: when a sweep may find work again. */
    nextExpiry: (at: number) => Math.min(Infinity, ...[...leases.values()].map((l) => l.expiresAt + 1).filter((t) => t > at)),
  };
}
