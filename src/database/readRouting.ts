import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { RETRY_POLICIES } from '../domain/retry/retryPolicy.ts';
import { createFailureBackoff } from '../supervision/failureBackoff.ts';
import { createDatabasePool } from './databasePool.ts';
import { routingDialect } from './routingDialect.ts';

/** What a read needs of the read models: that `projections` show the log up to `after` (0: anything they show). */
export interface ReadNeed {
  after: number;
  projections: readonly string[];
}

/** How often a read that waits for a position looks at the checkpoints again. */
const LOOK_EVERY_MS = 10;
/** How long a position a server's read models showed is taken as still shown without asking again. */
const SHOWN_FOR_MS = 1_000;

/** A replica whose read models show less than they did (rebuilt, restored, or another server behind its address). */
export class ReplicaWentBackwards extends Error {
  constructor(label: string, was: number, now: number) {
    super(`read replica ${label} went backwards: its read models showed log position ${was}, now ${now}`);
    this.name = 'ReplicaWentBackwards';
  }
}

/**
 * Reads that may be a little behind (listings, polls), served by PostgreSQL streaming replicas
 * (`DATABASE_READ_URLS`) while the primary takes the writes, without a caller losing sight of its
 * own writes. A read runs `within` its need: its queries go to a replica whose read models (its copy
 * of `projection_checkpoints`) show the caller's position, else, once the primary's do, to the
 * primary; after `waitMs` at most it reads the primary as it is. A replica that fails to answer is
 * left out for the retry policy's wait (reads go on, on the others or the primary) and is `down` in
 * /health until it answers again. Queries outside `within` (and every write) go to the primary.
 */
export function createReadRouting<Database>(deps: {
  primary: pg.Pool;
  replicaUrls: readonly string[];
  waitMs: number;
  logger: Logger;
  random?: () => number;
  /** A replica's pool (tests pass their own). */
  openPool?: (url: string) => pg.Pool;
  /** The clock the retry policy's waits are kept on (tests pass their own). */
  now?: () => number;
}) {
  const now = deps.now ?? (() => performance.now());
  const openPool = deps.openPool ?? ((url: string) => createDatabasePool({ connectionString: url, max: 10, connectionTimeoutMillis: 2_000 }, deps.logger));
  const replicas = deps.replicaUrls.map((url) => ({
    label: replicaLabel(url),
    pool: openPool(url),
    shown: new Map<string, Shown>(),
    outage: createFailureBackoff(RETRY_POLICIES.readReplica, deps.random),
    reads: 0,
    lastError: null as string | null,
  }));
  const primary = { shown: new Map<string, Shown>(), reads: 0, waitedOut: 0 };
  const needs = new AsyncLocalStorage<ReadNeed>();
  let turn = 0;

  function failed(index: number, error: unknown) {
    const replica = replicas[index]!;
    const retryInMs = replica.outage.failed(now());
    replica.lastError = (error as Error).message ?? String(error);
    deps.logger.warn({ err: error, replica: replica.label, retryInMs }, 'read replica failed; its reads go elsewhere until it is tried again');
  }

  /** A replica answered: it is up again, and its next failure waits the policy's first wait. */
  function answered(index: number) {
    replicas[index]!.outage.succeeded();
  }

  /**
   * Whether `pool`'s read models show `need`. What a server showed is remembered for SHOWN_FOR_MS,
   * then asked again: a replica rebuilt or restored shows less than it did, and is then dropped
   * (`label`: a replica's; it is left out for the retry policy's wait, as a failed one) rather than
   * trusted with a position it no longer has. The primary's position is taken as it is.
   */
  async function shows(pool: pg.Pool, shown: Map<string, Shown>, need: ReadNeed, onAnswer?: () => void, label?: string) {
    const key = need.projections.join(',');
    const known = shown.get(key);
    if (known && now() - known.at < SHOWN_FOR_MS && known.position >= need.after) return true;
    const { rows } = await pool.query<{ position: number | null }>('SELECT min(position)::bigint AS position FROM projection_checkpoints WHERE name = ANY($1)', [need.projections]);
    onAnswer?.();
    const position = Number(rows[0]?.position ?? 0);
    shown.set(key, { position, at: now() });
    if (label !== undefined && known && position < known.position) throw new ReplicaWentBackwards(label, known.position, position);
    return position >= need.after;
  }

  async function choose(): Promise<number | 'primary'> {
    const need = needs.getStore();
    if (!need) return 'primary';
    const deadline = performance.now() + deps.waitMs;
    for (;;) {
      const live = replicas.map((_, index) => (turn + index) % replicas.length).filter((index) => replicas[index]!.outage.due(now()));
      turn++;
      for (const index of live) {
        const replica = replicas[index]!;
        try {
          if (need.after === 0 || (await shows(replica.pool, replica.shown, need, () => answered(index), replica.label))) return (replica.reads++, index);
        } catch (error) {
          failed(index, error);
        }
      }
      if (need.after === 0 || (await shows(deps.primary, primary.shown, need))) return (primary.reads++, 'primary');
      const left = deadline - performance.now();
      if (left <= 0) return (primary.reads++, primary.waitedOut++, 'primary');
      await sleep(Math.min(LOOK_EVERY_MS, left));
    }
  }

  const db = new Kysely<Database>({
    dialect: routingDialect({ primary: deps.primary, replicas: replicas.map((r) => r.pool) }, { choose, failed, answered }),
  });

  return {
    /** The read models, read where the need of the `within` around the query allows. */
    db,
    /** Runs `read` with its queries on `db` routed for `need`. */
    within: <T>(need: ReadNeed, read: () => Promise<T>) => needs.run(need, read),
    status: () => ({
      // Down from a failure until it answers again: the end of the policy's wait is only when it is tried again.
      replicas: replicas.map((r) => ({ replica: r.label, state: r.outage.failures() === 0 ? ('up' as const) : ('down' as const), reads: r.reads, lastError: r.lastError })),
      primaryReads: primary.reads,
      waitedOut: primary.waitedOut,
    }),
    /** Ends the replicas' pools (the primary's belongs to the caller). */
    async close() {
      await db.destroy();
      await Promise.all(replicas.filter((r) => !r.pool.ending).map((r) => r.pool.end()));
    },
  };
}

/** A position a server's read models showed, and when it was read. */
interface Shown {
  position: number;
  at: number;
}

export type ReadRouting<Database = unknown> = ReturnType<typeof createReadRouting<Database>>;

/** A replica named in logs and /health by its host, port and database, never its credentials. */
function replicaLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}
