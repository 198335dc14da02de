import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';

/** Where the dialect takes each connection from (readRouting.ts decides). */
export interface Route {
  /** The pool the next connection comes from: a replica's index, or the primary. */
  choose(): Promise<number | 'primary'>;
  /** A replica's connection could not be had: the connection comes from the primary instead. */
  failed(replica: number, error: unknown): void;
  /** A replica's connection was had: it answers. */
  answered(replica: number): void;
}

/**
 * A Kysely dialect whose every connection comes from the pool `route.choose` names at that moment (the
 * primary or one of its replicas): Kysely's own PostgreSQL driver per pool, each connection given
 * back to the driver it came from. A connection is bound when it is first used: a plain read (a
 * Kysely select, or raw SQL that starts with SELECT) goes where the route says; anything else (a
 * write, a transaction) goes to the primary, wherever it is called from, so a read-only replica never
 * sees a write. The primary's pool belongs to the caller (it serves the writes' Kysely too), so
 * destroying this one ends only the replicas' pools.
 */
export function routingDialect(pools: { primary: pg.Pool; replicas: readonly pg.Pool[] }, route: Route): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createDriver: () => new RoutingDriver(new PostgresDriver({ pool: pools.primary }), pools.replicas.map((pool) => new PostgresDriver({ pool })), route),
  };
}

class RoutingDriver implements Driver {
  private readonly primary: PostgresDriver;
  private readonly replicas: readonly PostgresDriver[];
  private readonly route: Route;

  constructor(primary: PostgresDriver, replicas: readonly PostgresDriver[], route: Route) {
    this.primary = primary;
    this.replicas = replicas;
    this.route = route;
  }

  async init() {
    await Promise.all([this.primary, ...this.replicas].map((driver) => driver.init()));
  }

  /** A connection bound on its first use, to the pool that use calls for. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection((read) => this.#bind(read));
  }

  async #bind(read: boolean): Promise<Bound> {
    const chosen = read ? await this.route.choose() : 'primary';
    if (chosen === 'primary') return { driver: this.primary, connection: await this.primary.acquireConnection() };
    try {
      const driver = this.replicas[chosen]!;
      const connection = await driver.acquireConnection();
      this.route.answered(chosen);
      return { driver, connection };
    } catch (error) {
      this.route.failed(chosen, error);
      return { driver: this.primary, connection: await this.primary.acquireConnection() };
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.beginTransaction(bound.connection, settings);
  }
  async commitTransaction(connection: DatabaseConnection) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.commitTransaction(bound.connection);
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.rollbackTransaction(bound.connection);
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.savepoint(bound.connection, name, compile);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.rollbackToSavepoint(bound.connection, name, compile);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    const bound = await (connection as RoutedConnection).bind(false);
    await bound.driver.releaseSavepoint(bound.connection, name, compile);
  }
  async releaseConnection(connection: DatabaseConnection) {
    const bound = (connection as RoutedConnection).bound;
    if (bound) await bound.driver.releaseConnection(bound.connection as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  async destroy() {
    await Promise.all(this.replicas.map((driver) => driver.destroy()));
  }
}

interface Bound {
  driver: PostgresDriver;
  connection: DatabaseConnection;
}

/** Reads that a replica may serve: Kysely's selects, and raw SQL that is a plain SELECT. */
function isRead(query: CompiledQuery): boolean {
  return query.query.kind === 'SelectQueryNode' || (query.query.kind === 'RawNode' && /^\s*select\b/i.test(query.sql));
}

class RoutedConnection implements DatabaseConnection {
  bound: Bound | undefined;
  #binding: Promise<Bound> | undefined;

  private readonly choose: (read: boolean) => Promise<Bound>;

  constructor(choose: (read: boolean) => Promise<Bound>) {
    this.choose = choose;
  }

  /** The connection this one is bound to, bound now (for a read or not) if it is not yet. */
  bind(read: boolean): Promise<Bound> {
    this.#binding ??= this.choose(read).then((bound) => (this.bound = bound));
    return this.#binding;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return (await this.bind(isRead(query))).connection.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.bind(isRead(query))).connection.streamQuery<R>(query, chunkSize);
  }
}
