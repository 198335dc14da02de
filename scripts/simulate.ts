// `npm run test:simulate -- --seeds N [--from S]` (or `-- --mutants`: scripts/mutants.ts): more seeded schedules than `npm test` runs, of the
// engine (test/simulation/engineSimulation.ts) and of webhook deliveries (deliverySimulation.ts);
// prints each broken invariant with its seed, exits 1 if any.
import { parseArgs } from 'node:util';
import { simulateDeliveries } from '../test/simulation/deliverySimulation.ts';
import { simulateSchedule } from '../test/simulation/engineSimulation.ts';
import { startInProcessPostgres } from '../test/simulation/inProcessPostgres.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '10000' }, from: { type: 'string', default: '1' }, mutants: { type: 'boolean', default: false } } });
if (values.mutants) {
  // One-line mutations each of which the simulation or its named tests must catch (scripts/mutants.ts).
  await import('./mutants.ts');
  process.exit(process.exitCode ?? 0);
}
const seeds = Number(values.seeds);
const from = Number(values.from);
if (!Number.isInteger(seeds) || seeds < 1 || !Number.isInteger(from)) throw new Error('--seeds N (a positive integer) [--from S]');
const started = performance.now();
const postgres = await startInProcessPostgres();
const engine = { runs: 0, faults: 0, deaths: 0, modelCalls: 0, stalls: 0, broken: 0 };
const deliveries = { deliveries: 0, posts: 0, faults: 0, deaths: 0, wrongKeys: 0, stalls: 0, startedAgain: 0, broken: 0 };
const report = (kind: string, seed: number, violations: string[]) => {
  for (const violation of violations) process.stdout.write(`${kind} seed ${seed}: ${violation}\n  replay: npm run test:simulate -- --from ${seed} --seeds 1\n`);
  return violations.length;
};
for (let seed = from; seed < from + seeds; seed++) {
  const run = await simulateSchedule(seed, postgres);
  engine.runs += run.runs;
  engine.faults += run.faults;
  engine.modelCalls += run.modelCalls;
  engine.stalls += run.stalls;
  if (run.died) engine.deaths++;
  engine.broken += report('engine', seed, run.violations);
  const sent = await simulateDeliveries(seed, postgres);
  deliveries.deliveries += sent.deliveries;
  deliveries.posts += sent.posts;
  deliveries.faults += sent.faults;
  deliveries.deaths += sent.deaths;
  deliveries.wrongKeys += sent.wrongKeys;
  deliveries.stalls += sent.stalls;
  deliveries.startedAgain += sent.startedAgain;
  deliveries.broken += report('deliveries', seed, sent.violations);
}
await postgres.close();
process.stdout.write(`${JSON.stringify({ seeds, from, engine, deliveries, seconds: Math.round((performance.now() - started) / 100) / 10 })}\n`);
process.exitCode = engine.broken + deliveries.broken > 0 ? 1 : 0;
