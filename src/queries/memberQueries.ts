import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** The organizations a signed-in user (an OAuth subject) is a member of, with the role in each. */
export async function membershipsOf(db: Kysely<ReadModels>, subject: string) {
  return db.selectFrom('members').select(['organization_id', 'role']).where('user_subject', '=', subject).orderBy('organization_id').execute();
}

/** The subjects of an organization's members, by its slug (empty for an unknown slug). */
export async function memberSubjectsOf(db: Kysely<ReadModels>, organizationSlug: string): Promise<Set<string>> {
  const rows = await db.selectFrom('members').innerJoin('organizations', 'organizations.id', 'members.organization_id').select('members.user_subject').where('organizations.slug', '=', organizationSlug).execute();
  return new Set(rows.map((row) => row.user_subject));
}
