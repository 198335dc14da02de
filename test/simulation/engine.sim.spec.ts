import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateSchedule } from './engineSimulation.ts';
import { type InProcessPostgres, startInProcessPostgres } from './inProcessPostgres.ts';

/**
 * The deterministic simulation in `npm test`: this many seeded schedules of the engine over the
 * real PostgreSQL adapter on an in-process PostgreSQL, with faults beneath it and at the model
 * (SEQFLOW_SIM_SEEDS, from SEQFLOW_SIM_FROM).
 * `npm run test:simulate -- --seeds N [--from S]` runs more; a failing seed replays alone with
 * `--from S --seeds 1`.
 */
const SEEDS = Number(process.env.SEQFLOW_SIM_SEEDS ?? 1000);
const FROM = Number(process.env.SEQFLOW_SIM_FROM ?? 1);

describe('the engine under seeded faults (deterministic simulation)', () => {
  let postgres: InProcessPostgres;
  beforeAll(async () => {
    postgres = await startInProcessPostgres();
  }, 60_000);
  afterAll(() => postgres.close());

  it(`keeps every invariant over ${SEEDS} schedules from seed ${FROM}`, async () => {
    const broken: string[] = [];
    let faults = 0;
    let deaths = 0;
    let stalls = 0;
    for (let seed = FROM; seed < FROM + SEEDS; seed++) {
      const result = await simulateSchedule(seed, postgres);
      faults += result.faults;
      if (result.died) deaths++;
      stalls += result.stalls;
      for (const violation of result.violations) broken.push(`seed ${seed}: ${violation}`);
    }
    expect(broken).toEqual([]);
    // The schedules met what they are for: faults at the log, processes that died, and workers that
    // stalled in a model call while another took their job over.
    expect(faults).toBeGreaterThan(SEEDS / 10);
    expect(deaths).toBeGreaterThan(SEEDS / 20);
    expect(stalls).toBeGreaterThan(SEEDS / 20);
  }, 300_000);

  it('replays a schedule from its seed alone: the same runs, faults, model calls and log, stream ids included', async () => {
    for (const seed of [FROM, FROM + 1, FROM + 7]) {
      const first = await simulateSchedule(seed, postgres);
      expect(first.recorded.length).toBeGreaterThan(0);
      expect(await simulateSchedule(seed, postgres)).toEqual(first);
    }
  });
});
