import { describe, expect, it } from 'vitest';
import { simulateDeliveries } from './deliverySimulation.ts';

/**
 * Webhook deliveries in the deterministic simulation of `npm test`: this many seeded schedules of
 * hostile receivers, a faulty log, dying processes and workers with the wrong master key
 * (SEQFLOW_SIM_SEEDS, from SEQFLOW_SIM_FROM). `npm run test:simulate -- --seeds N` runs more.
 */
const SEEDS = Number(process.env.SEQFLOW_SIM_SEEDS ?? 1500);
const FROM = Number(process.env.SEQFLOW_SIM_FROM ?? 1);

describe('webhook deliveries under seeded faults (deterministic simulation)', () => {
  it(`end within the retry policy's bounds over ${SEEDS} schedules from seed ${FROM}`, async () => {
    const broken: string[] = [];
    const totals = { posts: 0, faults: 0, deaths: 0, wrongKeys: 0 };
    for (let seed = FROM; seed < FROM + SEEDS; seed++) {
      const result = await simulateDeliveries(seed);
      totals.posts += result.posts;
      totals.faults += result.faults;
      totals.deaths += result.deaths;
      totals.wrongKeys += result.wrongKeys;
      for (const violation of result.violations) broken.push(`seed ${seed}: ${violation}`);
    }
    expect(broken).toEqual([]);
    // The schedules met what they are for: hostile answers, faults at the log, deaths, wrong keys.
    expect(totals.posts).toBeGreaterThan(SEEDS);
    expect(totals.faults).toBeGreaterThan(SEEDS / 10);
    expect(totals.deaths).toBeGreaterThan(SEEDS / 20);
    expect(totals.wrongKeys).toBeGreaterThan(SEEDS / 20);
  }, 300_000);
});
