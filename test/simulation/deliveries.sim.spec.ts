import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateDeliveries } from './deliverySimulation.ts';
import { type InProcessPostgres, startInProcessPostgres } from './inProcessPostgres.ts';

/**
 * Webhook deliveries in the deterministic simulation of `npm test`: this many seeded schedules of
 * hostile receivers, the real PostgreSQL adapter and leases on an in-process PostgreSQL with faults
 * beneath them, the real sealing store, runs erased part way, and up to three processes at once that
 * die, stall past their leases or hold the wrong master key (SEQFLOW_SIM_SEEDS, from
 * SEQFLOW_SIM_FROM). `npm run test:simulate -- --seeds N` runs more.
 */
const SEEDS = Number(process.env.SEQFLOW_SIM_SEEDS ?? 500);
const FROM = Number(process.env.SEQFLOW_SIM_FROM ?? 1);

describe('webhook deliveries under seeded faults (deterministic simulation)', () => {
  let postgres: InProcessPostgres;
  beforeAll(async () => {
    postgres = await startInProcessPostgres();
  }, 60_000);
  afterAll(() => postgres.close());

  it(`end within the retry policy's bounds over ${SEEDS} schedules from seed ${FROM}`, async () => {
    const broken: string[] = [];
    const totals = { posts: 0, faults: 0, deaths: 0, wrongKeys: 0, stalls: 0, startedAgain: 0, erasures: 0, endedErased: 0 };
    for (let seed = FROM; seed < FROM + SEEDS; seed++) {
      const result = await simulateDeliveries(seed, postgres);
      totals.posts += result.posts;
      totals.faults += result.faults;
      totals.deaths += result.deaths;
      totals.wrongKeys += result.wrongKeys;
      totals.stalls += result.stalls;
      totals.startedAgain += result.startedAgain;
      totals.erasures += result.erasures;
      totals.endedErased += result.endedErased;
      for (const violation of result.violations) broken.push(`seed ${seed}: ${violation}`);
    }
    expect(broken).toEqual([]);
    // The schedules met what they are for: hostile answers, faults at the log, deaths, wrong keys,
    // processes held up past their leases while others took their attempts over.
    expect(totals.posts).toBeGreaterThan(SEEDS);
    expect(totals.faults).toBeGreaterThan(SEEDS / 10);
    expect(totals.deaths).toBeGreaterThan(SEEDS / 20);
    expect(totals.wrongKeys).toBeGreaterThan(SEEDS / 20);
    expect(totals.stalls).toBeGreaterThan(SEEDS / 10);
    expect(totals.startedAgain).toBeGreaterThan(SEEDS / 10);
    // Runs erased while their deliveries were due, some of which then ended data_erased without a POST.
    expect(totals.erasures).toBeGreaterThan(SEEDS / 10);
    expect(totals.endedErased).toBeGreaterThan(SEEDS / 20);
  }, 300_000);

  it('replays a schedule of processes at once from its seed alone: the same log, event for event and process for process', async () => {
    for (const seed of [FROM, FROM + 1, FROM + 7, FROM + 44]) {
      const first = await simulateDeliveries(seed, postgres);
      expect(first.recorded.length).toBeGreaterThan(0);
      expect(await simulateDeliveries(seed, postgres)).toEqual(first);
    }
  });
});
