/**
 * Whether an error means the database connection went away (a restart, a failover,
 * `pg_terminate_backend`, a reset socket) rather than that the statement was wrong: such work may
 * be retried on a fresh connection, and a request that cannot be is answered 503.
 */
const CONNECTION_LOSS_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

export const isConnectionLoss = (error: unknown): boolean =>
  CONNECTION_LOSS_CODES.has((error as { code?: string } | null)?.code ?? '') || /Connection terminated|terminating connection|Client has encountered a connection error/i.test((error as Error | null)?.message ?? '');
