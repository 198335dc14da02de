import {
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';

/** Where the dialect takes each connection from (readRouting.ts decides). */
export interface Route {
  /** The pool the next connection comes from: a replica's index, or the primary. */
  choose(): Promise<number | 'primary'>;
  /** A replica's connection could not be had: the connection comes from the primary instead. */
  failed(replica: number, error: unknown): void;
}

/**
 * A Kysely dialect whose every connection comes from the pool `route.choose` names at that moment (the
 * primary or one of its replicas): Kysely's own PostgreSQL driver per pool, each connection given
 * back to the driver it came from. The primary's pool belongs to the caller (it serves the writes'
 * Kysely too), so destroying this one ends only the replicas' pools.
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
  readonly #owners = new WeakMap<DatabaseConnection, PostgresDriver>();

  constructor(
    private readonly primary: PostgresDriver,
    private readonly replicas: readonly PostgresDriver[],
    private readonly route: Route,
  ) {}

  async init() {
    await Promise.all([this.primary, ...this.replicas].map((driver) => driver.init()));
  }

  async acquireConnection() {
    const chosen = await this.route.choose();
    let driver = chosen === 'primary' ? this.primary : this.replicas[chosen]!;
    let connection: DatabaseConnection;
    try {
      connection = await driver.acquireConnection();
    } catch (error) {
      if (chosen === 'primary') throw error;
      this.route.failed(chosen, error);
      driver = this.primary;
      connection = await driver.acquireConnection();
    }
    this.#owners.set(connection, driver);
    return connection;
  }

  #owner(connection: DatabaseConnection) {
    return this.#owners.get(connection) ?? this.primary;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.#owner(connection).beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection) {
    return this.#owner(connection).commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection) {
    return this.#owner(connection).rollbackTransaction(connection);
  }
  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#owner(connection).savepoint(connection, name, compile);
  }
  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#owner(connection).rollbackToSavepoint(connection, name, compile);
  }
  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#owner(connection).releaseSavepoint(connection, name, compile);
  }
  async releaseConnection(connection: DatabaseConnection) {
    const owner = this.#owner(connection);
    this.#owners.delete(connection);
    await owner.releaseConnection(connection as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  async destroy() {
    await Promise.all(this.replicas.map((driver) => driver.destroy()));
  }
}
