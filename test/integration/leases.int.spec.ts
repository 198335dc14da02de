import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeases } from '../../src/leases/leases.ts';
import { migrateReadModels } from '../../src/projections/migrateReadModels.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';
import { type TestDatabase, createTestDatabase } from '../support/testDatabase.ts';

/** Candidates for a sweep: the given ids, locked like a read model's rows would be. */
const candidates = (ids: string[]) => sql`WITH candidate AS (SELECT unnest(${ids}::text[]) AS id)`;

/** Polls `probe` until it answers something (bounded: a lease that never expires fails the test). */
async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 500; tries++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('leases: one owner per piece of work, whatever crashes', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<ReadModels>;
  let n = 0;
  const fresh = () => `work-${++n}`;

  beforeAll(async () => {
    database = await createTestDatabase('leases');
    pool = new pg.Pool({ connectionString: database.url, max: 8 });
    pool.on('error', () => undefined);
    db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
    await migrateReadModels(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  for (const kind of ['job', 'delivery'] as const) {
    describe(`${kind} leases`, () => {
      const holder = (owner: string, leaseMs = 60_000) => createLeases(db, { kind, owner, leaseMs });

      it('gives work claimed by id at the same moment to exactly one of two claimants', async () => {
        const ids = Array.from({ length: 20 }, fresh);
        const [a, b] = [holder('a'), holder('b')];
        const results = await Promise.all(ids.flatMap((id) => [a.claimById(id), b.claimById(id)]));
        for (let i = 0; i < ids.length; i++) {
          const won = [results[2 * i], results[2 * i + 1]].filter((lease) => lease !== undefined);
          expect(won).toEqual([{ id: ids[i], claims: 1 }]);
        }
      });

      it('claims by id what one holder asks for at once in one statement, and the same work asked for twice once', async () => {
        const statements: string[] = [];
        const counted = db.withPlugin({ transformQuery: (args) => (statements.push(args.node.kind), args.node), transformResult: async (args) => args.result });
        const one = createLeases(counted, { kind, owner: 'batch', leaseMs: 60_000 });
        const ids = Array.from({ length: 5 }, fresh);
        const leases = await Promise.all([...ids.map((id) => one.claimById(id)), one.claimById(ids[0]!)]);
        expect(statements).toHaveLength(1);
        expect(leases).toEqual([...ids.map((id) => ({ id, claims: 1 })), undefined]);
        // Already held: asked again later, it is not this holder's twice.
        expect(await one.claimById(ids[1]!)).toBeUndefined();
      });

      it('shares the candidates of two concurrent sweeps between them, none twice', async () => {
        const ids = Array.from({ length: 30 }, fresh);
        const [a, b] = await Promise.all([holder('a').claim(candidates(ids)), holder('b').claim(candidates(ids))]);
        const claimed = [...a, ...b].map((lease) => lease.id);
        expect(claimed.sort()).toEqual([...ids].sort());
        expect(new Set(claimed).size).toBe(ids.length);
      });

      it('lets another claimant take over the work of one that died, once its lease ran out, counting the claim', async () => {
        const id = fresh();
        const dead = holder('dead', 1);
        expect(await dead.claimById(id)).toEqual({ id, claims: 1 });
        const heir = holder('heir');
        expect(await eventually(() => heir.claimById(id), 'the expired lease taken over')).toEqual({ id, claims: 2 });
        // The dead holder, back from a pause, neither renews nor wins it back.
        await dead.renew(id);
        expect(await dead.claimById(id)).toBeUndefined();
        const row = await sql<{ owner: string; live: boolean }>`SELECT owner, expires_at > now() AS live FROM ${sql.table(`${kind}_leases`)} WHERE ${sql.ref(kind === 'job' ? 'execution_id' : 'delivery_id')} = ${id}`.execute(db);
        expect(row.rows).toEqual([{ owner: 'heir', live: true }]);
      });

      it('refuses a held lease to everyone else until it runs out', async () => {
        const id = fresh();
        expect(await holder('a').claimById(id)).toBeDefined();
        expect(await holder('b').claimById(id)).toBeUndefined();
        expect(await holder('b').claim(candidates([id]))).toEqual([]);
      });

      it('leaves work released after an error claimable at once, by id and by sweep', async () => {
        const [first, second] = [fresh(), fresh()];
        const a = holder('a');
        await a.claimById(first);
        await a.claimById(second);
        await a.release(first);
        await a.release(second);
        expect(await holder('b').claimById(first)).toEqual({ id: first, claims: 2 });
        expect(await holder('c').claim(candidates([second]))).toEqual([{ id: second, claims: 2 }]);
      });

      it('releases every lease of a holder that shuts down, and only its own', async () => {
        const [mine, theirs] = [fresh(), fresh()];
        const a = holder('shutting-down');
        await a.claimById(mine);
        await holder('other').claimById(theirs);
        expect(await a.releaseAll()).toBe(1);
        expect(await holder('next').claimById(mine)).toBeDefined();
        expect(await holder('next').claimById(theirs)).toBeUndefined();
      });
    });
  }

  it("never hands out a finished job's lease again, even after it runs out", async () => {
    const id = fresh();
    const runner = createLeases(db, { kind: 'job', owner: 'runner', leaseMs: 1 });
    await runner.claimById(id);
    await runner.finish(id);
    const other = createLeases(db, { kind: 'job', owner: 'other', leaseMs: 60_000 });
    // Expired (1 ms) and finished: still nobody's to take.
    await eventually(async () => ((await sql<{ expired: boolean }>`SELECT expires_at < now() AS expired FROM job_leases WHERE execution_id = ${id}`.execute(db)).rows[0]?.expired ? true : undefined), 'the lease to expire');
    expect(await other.claimById(id)).toBeUndefined();
    expect(await other.claim(candidates([id]))).toEqual([]);
  });

  it("frees a delivery's lease when its attempt finishes, keeping the attempt's number until the next attempt takes it", async () => {
    const id = fresh();
    const dispatcher = createLeases(db, { kind: 'delivery', owner: 'one', leaseMs: 60_000 });
    await dispatcher.claimById(id);
    await dispatcher.finish(id, 1);
    expect((await db.selectFrom('delivery_leases').select(['finished_attempts']).where('delivery_id', '=', id).executeTakeFirstOrThrow()).finished_attempts).toBe(1);
    const next = createLeases(db, { kind: 'delivery', owner: 'two', leaseMs: 60_000 });
    expect(await next.claimById(id)).toEqual({ id, claims: 2 });
    expect(await db.selectFrom('delivery_leases').select(['owner', 'finished_attempts', 'done_at']).where('delivery_id', '=', id).executeTakeFirstOrThrow()).toEqual({ owner: 'two', finished_attempts: null, done_at: null });
  });
});
