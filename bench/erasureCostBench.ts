import type { FastifyInstance } from 'fastify';
import { buildServer } from '../src/api/rest/server.ts';
import type { Runtime } from '../src/runtime/runtime.ts';
import { openBenchRuntime, seedBenchProject } from './benchRuntime.ts';
import { EXECUTE_FLOWS } from './executeBench.ts';
import { startLoadProcess } from './loadClient.ts';
import { measureMachineCpu } from './machineCpu.ts';

const round = (n: number, digits = 3) => Number(n.toFixed(digits));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Variant {
  runtime: Runtime;
  app: FastifyInstance;
  key: string;
  url: (slug: 'pass' | 'three') => string;
}

/**
 * What sealing run data costs on the `/execute` benchmarks (issue 39: at most 5% on passthrough and
 * three blocks). Two runtimes in this process, each on a database of its own and served on its own
 * port: one as the service runs (sealed), one opened with `sealRunData: false`. Each figure's two
 * c32 loads run back to back, the order swapped every round (ABBA), so the machine's drift (the
 * reason single A/B runs of `BENCH_ONLY=execute` disagree by 10%) falls on both alike;
 * each round gives a ratio sealed/unsealed, and the cost is one minus the median ratio.
 * `BENCH_ERASURE_AA=1` opens both unsealed: the ratios then show the bench's own noise.
 */
export async function benchErasureCost(createDatabase: (name: string) => Promise<string>, rounds = Number(process.env.BENCH_ERASURE_ROUNDS ?? 10)) {
  const loader = await startLoadProcess();
  const open = async (name: string, sealRunData: boolean): Promise<Variant> => {
    const runtime = await openBenchRuntime(await createDatabase(name), loader.modelBaseUrl, { sealRunData });
    const key = await seedBenchProject(runtime, EXECUTE_FLOWS);
    await runtime.projections.start();
    const app = await buildServer(runtime);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    return { runtime, app, key, url: (slug) => `http://127.0.0.1:${port}/api/v1/seq/bench/bench/${slug}/execute` };
  };
  const sealed = await open('sealed', process.env.BENCH_ERASURE_AA !== '1');
  const unsealed = await open('unsealed', false);
  // Throughput, and the machine's CPU per run (this process, PostgreSQL): steadier than throughput between rounds.
  const load = async (variant: Variant, slug: 'pass' | 'three', total: number) => {
    const cpu = measureMachineCpu();
    const { perSecond } = await loader.load({ url: variant.url(slug), key: variant.key, concurrency: 32, total, status: 200, warmUp: 0 });
    const used = cpu.stop(total);
    if (!('msPerRun' in used) || used.msPerRun === undefined) throw new Error("the erasure bench reads the machine's CPU from /proc: Linux only");
    return { perSecond, msPerRun: used.msPerRun };
  };
  type Measured = Awaited<ReturnType<typeof load>>;
  // A figure's two loads run back to back (the machine's speed drifts within seconds on a shared VM),
  // the first of them alternating between rounds.
  const pair = async (slug: 'pass' | 'three', total: number, sealedFirst: boolean) => {
    if (sealedFirst) {
      const s = await load(sealed, slug, total);
      return { sealed: s, unsealed: await load(unsealed, slug, total) };
    }
    const u = await load(unsealed, slug, total);
    return { sealed: await load(sealed, slug, total), unsealed: u };
  };
  try {
    const perRound: { sealed: Record<'passthrough' | 'threeBlocks', Measured>; unsealed: Record<'passthrough' | 'threeBlocks', Measured> }[] = [];
    for (let i = 0; i < rounds; i++) {
      const passthrough = await pair('pass', 4000, i % 2 === 0);
      const threeBlocks = await pair('three', 1000, i % 2 === 1);
      perRound.push({ sealed: { passthrough: passthrough.sealed, threeBlocks: threeBlocks.sealed }, unsealed: { passthrough: passthrough.unsealed, threeBlocks: threeBlocks.unsealed } });
    }
    const summary = (figure: 'passthrough' | 'threeBlocks') => {
      const ratios = perRound.map((r) => r.sealed[figure].perSecond / r.unsealed[figure].perSecond);
      const cpu = (variant: 'sealed' | 'unsealed', part: 'service' | 'machine') => round(median(perRound.map((r) => r[variant][figure].msPerRun[part])));
      const machine = { sealed: cpu('sealed', 'machine'), unsealed: cpu('unsealed', 'machine') };
      return {
        sealedPerSecond: perRound.map((r) => round(r.sealed[figure].perSecond, 1)),
        unsealedPerSecond: perRound.map((r) => round(r.unsealed[figure].perSecond, 1)),
        ratios: ratios.map((ratio) => round(ratio)),
        medianRatio: round(median(ratios)),
        cost: round(1 - median(ratios)),
        // Medians over the rounds of each variant's CPU per run (ms): this process, and the whole machine
        // (/proc/stat: PostgreSQL's share per process is not kept, its idle backends end between rounds).
        cpuMsPerRun: {
          sealed: { service: cpu('sealed', 'service'), machine: machine.sealed },
          unsealed: { service: cpu('unsealed', 'service'), machine: machine.unsealed },
          machineCost: round(machine.sealed / machine.unsealed - 1),
        },
      };
    };
    return { rounds, concurrency: 32, passthrough: summary('passthrough'), threeBlocks: summary('threeBlocks') };
  } finally {
    await loader.stop();
    for (const variant of [sealed, unsealed]) {
      await variant.app.close();
      await variant.runtime.close();
    }
  }
}
