import { sumUsd } from '../domain/models/modelCatalog.ts';
/** The buckets a runs-over-time chart is drawn in. */
export const activityBuckets = { hour: 3_600_000, day: 86_400_000 } as const;
export type ActivityBucket = keyof typeof activityBuckets;
/** Buckets one chart holds at most (a week by hour, half a year by day). */
export const MAX_BUCKETS = 200;
/** Flows drawn on their own; the others are added up as one. */
export const FLOWS_SHOWN = 8;

export interface ActivityRow {
  flowId: string;
  slug: string | null;
  name: string | null;
  /** The bucket's start (UTC). */
  at: Date;
  runs: number;
  failed: number;
  /** What the runs' llm calls cost in US dollars, as recorded (0 when none had a price). */
  costUsd?: number;
}

export interface ActivityFlow {
  /** A flow's id, or `other` for the flows past the first FLOWS_SHOWN added up. */
  key: string;
  label: string;
  runs: number;
  failed: number;
}

export interface ActivityPoint {
  at: string;
  /** Runs and failed runs per flow key; every shown flow has an entry (0 when it had none). */
  runs: Record<string, number>;
  failed: Record<string, number>;
  /** The bucket's runs' cost in US dollars, all flows together. */
  costUsd: number;
}

/** The first bucket start at or before `instant`. */
export const bucketStart = (instant: Date, bucket: ActivityBucket) => new Date(Math.floor(instant.getTime() / activityBuckets[bucket]) * activityBuckets[bucket]);

/**
 * Counted rows laid out as a chart's series: every bucket from `from` to `to` present (a quiet hour
 * is a zero, not a gap), the busiest flows on their own and the rest as `other`.
 */
export function activitySeries(rows: ActivityRow[], window: { from: Date; to: Date; bucket: ActivityBucket }): { flows: ActivityFlow[]; points: ActivityPoint[] } {
  const totals = new Map<string, ActivityFlow>();
  for (const row of rows) {
    const flow = totals.get(row.flowId) ?? { key: row.flowId, label: row.slug ?? row.flowId.slice(0, 8), runs: 0, failed: 0 };
    flow.runs += row.runs;
    flow.failed += row.failed;
    totals.set(row.flowId, flow);
  }
  const ranked = [...totals.values()].sort((a, b) => b.runs - a.runs || a.label.localeCompare(b.label));
  const shown = ranked.slice(0, FLOWS_SHOWN);
  const rest = ranked.slice(FLOWS_SHOWN);
  const flows = rest.length > 0 ? [...shown, { key: 'other', label: `${rest.length} other flows`, runs: sum(rest, 'runs'), failed: sum(rest, 'failed') }] : shown;
  const keyOf = new Map(ranked.map((flow, i) => [flow.key, i < FLOWS_SHOWN ? flow.key : 'other']));

  const step = activityBuckets[window.bucket];
  const points = new Map<number, ActivityPoint>();
  for (let at = bucketStart(window.from, window.bucket).getTime(); at < window.to.getTime(); at += step) {
    points.set(at, { at: new Date(at).toISOString(), runs: zeros(flows), failed: zeros(flows), costUsd: 0 });
  }
  for (const row of rows) {
    const point = points.get(bucketStart(row.at, window.bucket).getTime());
    const key = keyOf.get(row.flowId)!;
    if (!point) continue;
    point.runs[key]! += row.runs;
    point.failed[key]! += row.failed;
    point.costUsd = sumUsd([point.costUsd, row.costUsd ?? 0]);
  }
  return { flows, points: [...points.values()] };
}

const sum = (flows: ActivityFlow[], field: 'runs' | 'failed') => flows.reduce((total, flow) => total + flow[field], 0);
const zeros = (flows: ActivityFlow[]) => Object.fromEntries(flows.map((flow) => [flow.key, 0]));
