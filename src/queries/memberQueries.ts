import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** The organizations a signed-in user (an OAuth subject) is a member of, with the role in each. */
export async function membershipsOf(db: Kysely<ReadModels>, subject: string) {
  return db.selectFrom('members').select(['organization_id', 'role']).where('user_subject', '=', subject).orderBy('organization_id').execute();
}
