// `npm run test:simulate -- --seeds N [--from S]`: more seeded schedules of the engine than `npm test`
// runs (test/simulation/engineSimulation.ts); prints each broken invariant with its seed, exits 1 if any.
import { parseArgs } from 'node:util';
import { simulateSchedule } from '../test/simulation/engineSimulation.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '10000' }, from: { type: 'string', default: '1' } } });
const seeds = Number(values.seeds);
const from = Number(values.from);
if (!Number.isInteger(seeds) || seeds < 1 || !Number.isInteger(from)) throw new Error('--seeds N (a positive integer) [--from S]');
const started = performance.now();
const totals = { runs: 0, faults: 0, deaths: 0, modelCalls: 0, broken: 0 };
for (let seed = from; seed < from + seeds; seed++) {
  const result = await simulateSchedule(seed);
  totals.runs += result.runs;
  totals.faults += result.faults;
  totals.modelCalls += result.modelCalls;
  if (result.died) totals.deaths++;
  for (const violation of result.violations) {
    totals.broken++;
    process.stdout.write(`seed ${seed}: ${violation}\n  replay: npm run test:simulate -- --from ${seed} --seeds 1\n`);
  }
}
process.stdout.write(`${JSON.stringify({ seeds, from, ...totals, seconds: Math.round((performance.now() - started) / 100) / 10 })}\n`);
process.exitCode = totals.broken > 0 ? 1 : 0;
