const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * RSS and heap of the service over BENCH_MEMORY_RUNS runs (default 100k), sampled after each tenth
 * (after a full collection when node runs with --expose-gc, as `npm run bench` does): they should
 * stay flat, since every cache and queue has a bound. Growth is the last sample's heap minus the
 * first's.
 */
export async function memoryOverRuns(run: (runs: number) => Promise<{ perSecond: number }>) {
  const total = Number(process.env.BENCH_MEMORY_RUNS ?? 100_000);
  const chunk = Math.max(1, Math.floor(total / 10));
  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: { runs: number; rssMiB: number; heapUsedMiB: number }[] = [];
  let done = 0;
  let perSecond = 0;
  while (done < total) {
    const figures = await run(Math.min(chunk, total - done));
    done += Math.min(chunk, total - done);
    perSecond = figures.perSecond;
    gc?.();
    const usage = process.memoryUsage();
    samples.push({ runs: done, rssMiB: mib(usage.rss), heapUsedMiB: mib(usage.heapUsed) });
  }
  return {
    runs: total,
    flow: 'passthrough, concurrency 32',
    collectedBeforeSampling: Boolean(gc),
    lastChunkRunsPerSecond: perSecond,
    samples,
    heapGrowthFirstToLastMiB: samples.at(-1)!.heapUsedMiB - samples[0]!.heapUsedMiB,
  };
}
