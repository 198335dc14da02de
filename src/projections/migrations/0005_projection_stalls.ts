import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Records where and why a projection stalled, in its checkpoint.';

/** A projection that cannot apply an event stalls on it alone; every process (and /health) sees where and why. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE projection_checkpoints
    ADD COLUMN stalled_at_position bigint,
    ADD COLUMN stalled_event_type text,
    ADD COLUMN stalled_error text,
    ADD COLUMN stalled_since timestamptz`.execute(db);
}
