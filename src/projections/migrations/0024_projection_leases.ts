import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the projection runners\' leases: which worker process runs which group of projections.';

/**
 * The projections run in groups (src/projections/allProjections.ts), each group under a lease of
 * its own, held by one worker process at a time (src/leases/projectionLeases.ts). Not a read
 * model: a rebuild never touches it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE projection_leases (
      runner_name text PRIMARY KEY,
      owner text NOT NULL,
      expires_at timestamptz NOT NULL,
      claims integer NOT NULL DEFAULT 1,
      done_at timestamptz
    )`.execute(db);
}
