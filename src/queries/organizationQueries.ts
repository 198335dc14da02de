import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** Every organization with its projects, by slug: what an operator picks from (bounded by `limit` organizations). */
export async function listOrganizationsWithProjects(db: Kysely<ReadModels>, limit: number) {
  const organizations = await db.selectFrom('organizations').select(['id', 'slug', 'name']).orderBy('slug').limit(limit).execute();
  if (organizations.length === 0) return [];
  const projects = await db
    .selectFrom('projects')
    .select(['id', 'organization_id', 'slug', 'name'])
    .where('organization_id', 'in', organizations.map((o) => o.id))
    .orderBy('slug')
    .execute();
  return organizations.map((o) => ({
    organizationId: o.id,
    slug: o.slug,
    name: o.name,
    projects: projects.filter((p) => p.organization_id === o.id).map((p) => ({ projectId: p.id, slug: p.slug, name: p.name })),
  }));
}
