import { sql } from 'kysely';
import type pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadRouting } from '../../src/database/readRouting.ts';

/**
 * Where a read goes (src/database/readRouting.ts), without a database: servers that answer which
 * position their read models show (their `projection_checkpoints`) and, for a query, their own name.
 */
interface Server {
  shown: number;
  down: boolean;
}

function fakeServer(name: string, state: Server): pg.Pool {
  const pool = {
    ending: false,
    async query() {
      if (state.down) throw new Error(`${name}: connection refused`);
      return { rows: [{ position: state.shown }] };
    },
    async connect() {
      if (state.down) throw new Error(`${name}: connection refused`);
      return { query: async () => ({ command: 'SELECT', rowCount: 1, rows: [{ server: name }] }), release: () => undefined };
    },
    async end() {
      pool.ending = true;
    },
    on: () => pool,
  };
  return pool as unknown as pg.Pool;
}

describe('reads routed to read replicas', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  function setUp(servers: { primary: Server; replicas: Server[] }, waitMs = 200, now?: () => number) {
    const replicaPools = new Map(servers.replicas.map((state, i) => [`postgres://replica-${i}:5432/seqflow`, fakeServer(`replica-${i}`, state)]));
    const reads = createReadRouting<{ t: { server: string } }>({
      primary: fakeServer('primary', servers.primary),
      replicaUrls: [...replicaPools.keys()],
      waitMs,
      logger: pino({ level: 'silent' }),
      random: () => 1,
      openPool: (url) => replicaPools.get(url)!,
      ...(now ? { now } : {}),
    });
    closers.push(() => reads.close());
    const readOn = async (after: number) => reads.within({ after, projections: ['jobs'] }, async () => (await sql<{ server: string }>`SELECT 1`.execute(reads.db)).rows[0]!.server);
    return { reads, readOn };
  }

  it('reads outside a need on the primary, and a need with nothing to wait for on a replica', async () => {
    const { reads, readOn } = setUp({ primary: { shown: 10, down: false }, replicas: [{ shown: 0, down: false }] });
    expect((await sql<{ server: string }>`SELECT 1`.execute(reads.db)).rows[0]!.server).toBe('primary');
    expect(await readOn(0)).toBe('replica-0');
  });

  it("reads on a replica once its read models show the caller's position, on the primary when only the primary's do", async () => {
    const replica = { shown: 5, down: false };
    const primary = { shown: 5, down: false };
    const { readOn } = setUp({ primary, replicas: [replica] });
    expect(await readOn(5)).toBe('replica-0');
    // Neither shows 8 yet: the read waits; the primary gets there first.
    const waiting = readOn(8);
    primary.shown = 8;
    expect(await waiting).toBe('primary');
    replica.shown = 8;
    expect(await readOn(8)).toBe('replica-0');
  });

  it("reads the primary as it is after the wait, counted as waited out, when no server shows the caller's position", async () => {
    const { reads, readOn } = setUp({ primary: { shown: 3, down: false }, replicas: [{ shown: 3, down: false }] }, 30);
    expect(await readOn(9)).toBe('primary');
    expect(reads.status()).toMatchObject({ waitedOut: 1, primaryReads: 1, replicas: [{ replica: 'replica-0:5432/seqflow', state: 'up', reads: 0 }] });
  });

  it('passes over a replica that fails, for the retry policy\'s wait, and takes turns among the others', async () => {
    const broken = { shown: 100, down: true };
    const { reads, readOn } = setUp({ primary: { shown: 100, down: false }, replicas: [broken, { shown: 100, down: false }] });
    const servers = [await readOn(1), await readOn(1), await readOn(1)];
    expect(servers).toEqual(['replica-1', 'replica-1', 'replica-1']);
    expect(reads.status().replicas).toEqual([
      { replica: 'replica-0:5432/seqflow', state: 'down', reads: 0, lastError: 'replica-0: connection refused' },
      { replica: 'replica-1:5432/seqflow', state: 'up', reads: 3, lastError: null },
    ]);
  });

  it('keeps a failed replica down after the wait is over, until it answers again', async () => {
    let clock = 0;
    const replica = { shown: 4, down: true };
    const { reads, readOn } = setUp({ primary: { shown: 4, down: false }, replicas: [replica] }, 200, () => clock);
    expect(await readOn(4)).toBe('primary');
    // The policy's wait (1 s at most, jitter drawn at 1) is over: the replica is tried again, and fails again.
    clock += 60_000;
    expect(reads.status().replicas[0]).toMatchObject({ state: 'down' });
    expect(await readOn(4)).toBe('primary');
    expect(reads.status().replicas[0]).toMatchObject({ state: 'down' });
    // It answers again: up, and read on.
    replica.down = false;
    clock += 60_000;
    expect(await readOn(4)).toBe('replica-0');
    expect(reads.status().replicas[0]).toMatchObject({ state: 'up', reads: 1 });
    // Its next failure waits the policy's first wait again, not the doubled one.
    replica.down = true;
    replica.shown = 3;
    expect(await readOn(5)).toBe('primary');
    clock += 1_000;
    replica.down = false;
    replica.shown = 5;
    expect(await readOn(5)).toBe('replica-0');
  });

  it('reads the primary when a replica that showed the position refuses the connection itself', async () => {
    const replica = { shown: 7, down: false };
    const { reads, readOn } = setUp({ primary: { shown: 7, down: false }, replicas: [replica] });
    expect(await readOn(7)).toBe('replica-0');
    // Its position is remembered, so no check runs: the connection is what fails.
    replica.down = true;
    expect(await readOn(7)).toBe('primary');
    expect(reads.status().replicas[0]).toMatchObject({ state: 'down' });
  });

  it('sends a write and a transaction to the primary even within a read\'s need, and reads after them where the need says', async () => {
    const { reads } = setUp({ primary: { shown: 10, down: false }, replicas: [{ shown: 10, down: false }] });
    const need = { after: 0, projections: ['jobs'] };
    const servers = await reads.within(need, async () => ({
      written: (await reads.db.insertInto('t').values({ server: 'x' }).returning('server').execute())[0]!.server,
      rawWrite: (await sql<{ server: string }>`UPDATE t SET server = 'y'`.execute(reads.db)).rows[0]!.server,
      inTransaction: await reads.db.transaction().execute(async (trx) => (await trx.selectFrom('t').select('server').execute())[0]!.server),
      read: (await reads.db.selectFrom('t').select('server').execute())[0]!.server,
    }));
    expect(servers).toEqual({ written: 'primary', rawWrite: 'primary', inTransaction: 'primary', read: 'replica-0' });
  });

  it('asks a replica again within a second, and drops one whose read models went backwards (a rebuild, a restore) for the retry policy\'s wait (issue 60 point 7)', async () => {
    let clock = 0;
    const replica = { shown: 10, down: false };
    const { reads, readOn } = setUp({ primary: { shown: 10, down: false }, replicas: [replica] }, 200, () => clock);
    expect(await readOn(8)).toBe('replica-0');
    // Rebuilt: it shows less than it did. Within the second its position is still taken as shown...
    replica.shown = 3;
    clock += 500;
    expect(await readOn(8)).toBe('replica-0');
    // ...then asked again: it went backwards, so it is left out, and the caller reads its write on the primary.
    clock += 600;
    expect(await readOn(8)).toBe('primary');
    expect(reads.status().replicas[0]).toMatchObject({ state: 'down', lastError: expect.stringContaining('went backwards: its read models showed log position 10, now 3') });
    // Once caught up again, and after the policy's wait, it serves reads again.
    replica.shown = 12;
    clock += 60_000;
    expect(await readOn(8)).toBe('replica-0');
  });
});

