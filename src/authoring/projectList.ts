import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type AuthoringScope, inScope } from './authoringScope.ts';

/** The projects a caller may see, with their organization: where an assistant starts. */
export async function listProjects(db: Kysely<ReadModels>, scope: AuthoringScope) {
  if (scope.organizationIds?.length === 0) return [];
  let query = db
    .selectFrom('projects')
    .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
    .select(['projects.id as project_id', 'projects.slug', 'projects.name', 'organizations.id as organization_id', 'organizations.slug as organization_slug', 'organizations.name as organization_name'])
    .orderBy('organizations.slug')
    .orderBy('projects.slug');
  if (scope.organizationIds !== undefined) query = query.where('organizations.id', 'in', scope.organizationIds);
  return query.execute();
}

/**
 * A project named by its id, or by `organization-slug/project-slug`: its id, or PROJECT_NOT_FOUND
 * (also for a project outside the caller's scope: a slug never reveals another organization's id).
 */
export async function resolveProjectId(db: Kysely<ReadModels>, scope: AuthoringScope, project: string): Promise<string> {
  const slugs = /^([^/]+)\/([^/]+)$/.exec(project);
  if (!slugs) return project;
  const row = await db
    .selectFrom('projects')
    .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
    .select(['projects.id', 'projects.organization_id'])
    .where('organizations.slug', '=', slugs[1]!)
    .where('projects.slug', '=', slugs[2]!)
    .executeTakeFirst();
  if (!row || !inScope(scope, row.organization_id)) throw new ApiError('PROJECT_NOT_FOUND', `No project ${project}`);
  return row.id;
}
