import { describe, expect, it } from 'vitest';
import { type ActivityRow, FLOWS_SHOWN, activitySeries } from '../../src/queries/activitySeries.ts';

const hour = (h: number) => new Date(Date.UTC(2026, 10, 24, h));
const row = (flowId: string, h: number, runs: number, failed = 0): ActivityRow => ({ flowId, slug: flowId, name: flowId, at: hour(h), runs, failed });

describe('runs per flow over time, as a chart draws them', () => {
  it('has every bucket of the window, a quiet one as zeros', () => {
    const { flows, points } = activitySeries([row('essay', 1, 3, 1), row('essay', 3, 2)], { from: new Date(Date.UTC(2026, 10, 24, 0, 30)), to: hour(4), bucket: 'hour' });
    expect(flows).toEqual([{ key: 'essay', label: 'essay', runs: 5, failed: 1 }]);
    expect(points.map((p) => [p.at, p.runs.essay, p.failed.essay])).toEqual([
      ['2026-11-24T00:00:00.000Z', 0, 0],
      ['2026-11-24T01:00:00.000Z', 3, 1],
      ['2026-11-24T02:00:00.000Z', 0, 0],
      ['2026-11-24T03:00:00.000Z', 2, 0],
    ]);
  });

  it('draws the busiest flows on their own and adds the others up', () => {
    const rows = Array.from({ length: FLOWS_SHOWN + 2 }, (_, i) => row(`flow${String(i).padStart(2, '0')}`, 0, 100 - i, 1));
    const { flows, points } = activitySeries(rows, { from: hour(0), to: hour(1), bucket: 'hour' });
    expect(flows).toHaveLength(FLOWS_SHOWN + 1);
    expect(flows.at(-1)).toEqual({ key: 'other', label: '2 other flows', runs: 100 - FLOWS_SHOWN + (100 - FLOWS_SHOWN - 1), failed: 2 });
    expect(points[0]!.runs.other).toBe(100 - FLOWS_SHOWN + (100 - FLOWS_SHOWN - 1));
    expect(Object.values(points[0]!.runs).reduce((a, b) => a + b, 0)).toBe(rows.reduce((a, r) => a + r.runs, 0));
  });

  it('lays days out from midnight UTC', () => {
    const { points } = activitySeries([row('essay', 13, 4)], { from: new Date(Date.UTC(2026, 10, 22, 9)), to: new Date(Date.UTC(2026, 10, 24, 18)), bucket: 'day' });
    expect(points.map((p) => [p.at, p.runs.essay])).toEqual([
      ['2026-11-22T00:00:00.000Z', 0],
      ['2026-11-23T00:00:00.000Z', 0],
      ['2026-11-24T00:00:00.000Z', 4],
    ]);
  });
});

describe("what a bucket's runs cost", () => {
  it('adds every flow of the bucket up, to a millionth of a dollar, and a bucket without priced runs costs 0', () => {
    const rows: ActivityRow[] = [
      { ...row('essay', 1, 2), costUsd: 0.000123 },
      { ...row('triage', 1, 1), costUsd: 0.0000011 },
      { ...row('essay', 2, 1), costUsd: 0 },
    ];
    const { points } = activitySeries(rows, { from: hour(1), to: hour(3), bucket: 'hour' });
    expect(points.map((p) => p.costUsd)).toEqual([0.000124, 0]);
  });
});
