import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary =
  "Indexes open webhook deliveries in the order dispatchers claim them (when each is due), replacing the index on their retry time alone, and adds the function that picks due deliveries along it; the table is locked for writes while the index is built.";

/**
 * A dispatcher's claim (src/workers/deliveryClaims.ts) takes the oldest due deliveries:
 * `ORDER BY coalesce(next_attempt_at, created_at) LIMIT n`. Along this index PostgreSQL reads them
 * in that order and stops at the limit; without it, every claim read and sorted every open
 * delivery. The index on `next_attempt_at` alone served only that claim.
 *
 * The pick is a function for its planner settings: a backlog arrives in a burst, faster than
 * autovacuum gathers statistics, and while the table's statistics still say "a few rows" the
 * planner reads all of them and sorts (3.5 ms a claim at a backlog of 2,000, most of a drain's
 * database time). With scans that are not index scans, and sorts, turned off for its own statement
 * (a function's SET clause lasts for its call), the walk along the index is its only cheap plan.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_due_order ON webhook_deliveries ((coalesce(next_attempt_at, created_at))) WHERE status IN ('pending', 'failed_retry', 'in_flight')`.execute(db);
  await sql`DROP INDEX webhook_deliveries_due`.execute(db);
  await sql`
    CREATE FUNCTION seqflow_due_deliveries(max_rows integer, full_hosts text[], skip_organizations text[])
    RETURNS TABLE (id text, host text, due timestamptz)
    LANGUAGE sql VOLATILE
    SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
    AS $$
      -- A delivery from before the read model kept its host counts as a host of its own.
      SELECT d.id, coalesce(d.receiver_host, d.id), coalesce(d.next_attempt_at, d.created_at) FROM webhook_deliveries d
        LEFT JOIN delivery_leases l ON l.delivery_id = d.id
       WHERE (
               (d.status = 'pending' AND (l.delivery_id IS NULL OR l.expires_at < now()))
            OR (d.status = 'failed_retry' AND d.next_attempt_at <= now() AND (l.delivery_id IS NULL OR l.expires_at < now()))
               -- An attempt whose dispatcher died keeps its (expired) lease; one that finished keeps it
               -- marked with finished_attempts, even while the read model still shows it in flight.
            OR (d.status = 'in_flight' AND l.expires_at < now() AND l.finished_attempts IS NULL)
             )
         -- The index's own condition, said as it is: the planner need not prove it from the ORs above.
         AND d.status IN ('pending', 'failed_retry', 'in_flight')
         -- An attempt finished here that the read model does not show yet is not due again.
         AND (l.finished_attempts IS NULL OR (d.attempts >= l.finished_attempts AND d.status <> 'in_flight'))
         AND coalesce(d.receiver_host, d.id) <> ALL(full_hosts)
         -- Organizations whose secrets this worker cannot open: another worker may.
         AND d.organization_id <> ALL(skip_organizations)
       ORDER BY coalesce(d.next_attempt_at, d.created_at)
       LIMIT max_rows
       FOR UPDATE OF d SKIP LOCKED
    $$`.execute(db);
}
