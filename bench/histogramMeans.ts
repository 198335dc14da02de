import type { MetricValueWithName, Registry } from 'prom-client';

export interface HistogramMean {
  name: string;
  count: number;
  sumSeconds: number;
  meanMs: number;
}

/**
 * Each named histogram's count, sum and mean over all its labels; given an earlier reading, over
 * what happened since (the means of a measured window, from the service's own timers).
 */
export async function histogramMeans(registry: Registry, names: string[], since: HistogramMean[] = []): Promise<HistogramMean[]> {
  return Promise.all(
    names.map(async (name) => {
      const metric = registry.getSingleMetric(name);
      if (!metric) throw new Error(`no histogram ${name} in the registry`);
      const values = (await metric.get()).values as MetricValueWithName<string>[];
      const total = (suffix: string) => values.filter((v) => v.metricName === `${name}${suffix}`).reduce((sum, v) => sum + v.value, 0);
      const earlier = since.find((h) => h.name === name);
      const count = total('_count') - (earlier?.count ?? 0);
      const sumSeconds = total('_sum') - (earlier?.sumSeconds ?? 0);
      return { name, count, sumSeconds, meanMs: count === 0 ? 0 : Number(((sumSeconds / count) * 1000).toFixed(2)) };
    }),
  );
}
