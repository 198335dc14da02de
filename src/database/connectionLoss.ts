/**
 * Whether an error means the database connection went away (a restart, a failover,
 * `pg_terminate_backend`, a reset socket) rather than that the statement was wrong: such work may
 * be retried on a fresh connection, and a request that cannot be is answered 503. SQLSTATE class 08
 * is "connection exception" as a whole: PgBouncer reports a server it lost or cannot reach as
 * `08P01` ("server conn crashed?", "pgbouncer cannot connect to server").
 */
const CONNECTION_LOSS_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03']);

export function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_LOSS_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  return /Connection terminated|terminating connection|Client has encountered a connection error/i.test((error as Error | null)?.message ?? '');
}
