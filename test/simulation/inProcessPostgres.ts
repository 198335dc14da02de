import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { migrateEventLog } from '../../src/eventstore/postgres/migrateEventLog.ts';
import { migrateReadModels } from '../../src/projections/migrateReadModels.ts';
import type { ReadModels } from '../../src/projections/readModelSchema.ts';

/**
 * PostgreSQL in this process (PGlite: the server compiled to WebAssembly), for the simulation: the
 * real migrations and the real SQL (leases, due deliveries, projections) run on it, on the
 * simulation's clock and with no I/O outside the process, so a schedule stays a function of its seed.
 *
 * - `now()` is the virtual clock (the one `reset` was given): a function `sim.now()` put before `pg_catalog` on the search path
 *   (PostgreSQL looks an unqualified name up in that order when pg_catalog is named last), reading a
 *   row the pools set to the clock's time before each statement.
 * - One session serves everyone, as a pool of one connection would: a statement, or a checked-out
 *   client (a transaction), has it alone until it is done; the others queue in the order they asked.
 * - Values come back as node-postgres gives them (int8 and numeric as text), so the adapters' own
 *   conversions are the ones exercised.
 */
export async function startInProcessPostgres() {
  let now: () => number = Date.now;
  // node-postgres leaves int8 (20) and numeric (1700) as text; PGlite would make numbers of them.
  const db = new PGlite({ relaxedDurability: true, parsers: { 20: (value: string) => value, 1700: (value: string) => value } });
  await db.exec(`CREATE SCHEMA sim;
    CREATE UNLOGGED TABLE sim.clock (at timestamptz NOT NULL);
    INSERT INTO sim.clock VALUES (to_timestamp(0));
    CREATE FUNCTION sim.now() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT at FROM sim.clock $$;
    SET search_path = public, sim, pg_catalog;`);

  let queue: Promise<void> = Promise.resolve();
  /** The session, alone, until `release` is called. */
  const acquire = (): Promise<() => void> => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const turn = queue.then(() => release);
    queue = queue.then(() => done);
    return turn;
  };
  let clockSetTo: number | undefined;
  const run = async (text: string, params?: unknown[]): Promise<pg.QueryResult> => {
    const at = now();
    if (clockSetTo !== at) {
      await db.query('UPDATE sim.clock SET at = $1', [new Date(at)]);
      clockSetTo = at;
    }
    const result = params && params.length > 0 ? await db.query(text, params) : await db.query(text);
    return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length, command: (result as { command?: string }).command ?? '', oid: 0, fields: [] };
  };

  /** A process's pool over the session: `beforeQuery` and `afterQuery` may throw, as a lost connection would, before the statement ran or after it did. */
  const pool = (faults: { beforeQuery?: (text: string) => void; afterQuery?: (text: string) => void } = {}) => {
    const query = async (text: string, params?: unknown[]) => {
      faults.beforeQuery?.(text);
      const release = await acquire();
      let result: pg.QueryResult;
      try {
        result = await run(text, params);
      } finally {
        release();
      }
      faults.afterQuery?.(text);
      return result;
    };
    const connect = async () => {
      const release = await acquire();
      return {
        query: async (text: string, params?: unknown[]) => {
          faults.beforeQuery?.(text);
          const result = await run(text, params);
          faults.afterQuery?.(text);
          return result;
        },
        release: () => release(),
      };
    };
    return { query, connect, end: async () => undefined, on: () => undefined, options: {} } as unknown as pg.Pool;
  };
  const kysely = (over: pg.Pool) => new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool: over }) });

  const sound = pool();
  await migrateEventLog(sound);
  const admin = kysely(sound);
  await migrateReadModels(admin);
  const tables = (await db.query<{ name: string }>(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'seqflow\\_%migration%'`)).rows.map((r) => r.name);

  return {
    pool,
    kysely,
    /**
     * The database as after its migrations, its `now()` read from `clock` from here on: `used` (by
     * default every table) emptied, their sequences restarted. Emptying only the tables a simulation
     * writes saves most of the time a reset takes; a row left in another would show as a schedule
     * that does not replay from its seed.
     */
    async reset(clock: () => number, used: readonly (keyof ReadModels | 'seqflow_events' | 'seqflow_streams')[] = []) {
      const release = await acquire();
      try {
        await db.exec(`TRUNCATE ${(used.length > 0 ? used.map((name) => `"${name}"`) : tables).join(', ')} RESTART IDENTITY CASCADE`);
        clockSetTo = undefined;
        now = clock;
      } finally {
        release();
      }
    },
    close: () => db.close(),
  };
}

export type InProcessPostgres = Awaited<ReturnType<typeof startInProcessPostgres>>;
