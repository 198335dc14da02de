import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RETRY_POLICIES, retryDelayMs } from '../../src/domain/retry/retryPolicy.ts';
import { retryingReads } from '../../src/eventstore/postgres/retryingReads.ts';

/** A pool whose first `lost` queries find their connection terminated by the server; then it answers. */
function poolLosing(lost: number, error: Error & { code?: string } = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })) {
  let asked = 0;
  const pool = {
    query: async () => {
      asked++;
      if (asked <= lost) throw error;
      return { rows: [{ answered: asked }] };
    },
  } as unknown as pg.Pool;
  return { pool, asked: () => asked };
}

describe('reads of the log on connections the server is terminating', () => {
  const waitsOf = () => {
    const waits: number[] = [];
    return { waits, sleep: async (ms: number) => void waits.push(ms) };
  };

  it('tries again on another connection after a wait that grows by the retry policy, never at once', async () => {
    const { pool, asked } = poolLosing(4);
    const { waits, sleep } = waitsOf();
    const reads = retryingReads(pool, { sleep, random: () => 0.5 });
    expect(await reads.query('SELECT 1')).toEqual({ rows: [{ answered: 5 }] });
    expect(asked()).toBe(5);
    expect(waits).toEqual([1, 2, 3, 4].map((failures) => retryDelayMs(RETRY_POLICIES.lostConnectionRead, failures, 0.5)));
    expect(waits.every((ms) => ms > 0)).toBe(true);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
  });

  it('gives up after five tries with the loss itself', async () => {
    const { pool, asked } = poolLosing(Number.POSITIVE_INFINITY);
    const { waits, sleep } = waitsOf();
    await expect(retryingReads(pool, { sleep }).query('SELECT 1')).rejects.toThrow(/terminating connection/);
    expect(asked()).toBe(5);
    expect(waits).toHaveLength(4);
  });

  it('does not retry a read that failed for any other reason', async () => {
    const { pool, asked } = poolLosing(1, Object.assign(new Error('relation "nowhere" does not exist'), { code: '42P01' }));
    const { waits, sleep } = waitsOf();
    await expect(retryingReads(pool, { sleep }).query('SELECT * FROM nowhere')).rejects.toThrow(/does not exist/);
    expect(asked()).toBe(1);
    expect(waits).toEqual([]);
  });
});
