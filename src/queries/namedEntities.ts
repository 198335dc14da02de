import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How many names an error lists of what exists. */
const LISTED = 20;

export const isUuid = (ref: string) => UUID.test(ref);

const named = (names: string[], none: string) => (names.length === 0 ? none : `${names.slice(0, LISTED).join(', ')}${names.length > LISTED ? `, and ${names.length - LISTED} more` : ''}`);

/**
 * An organization, project or flow named the way an operator names it: by its id, or by its slug
 * (a project's within its organization, a flow's within its project; a slug that is unique across
 * the parents left out may stand alone). An unknown name says what exists; a name several parents
 * share says which, and what to add.
 */
export async function findOrganization(db: Kysely<ReadModels>, ref: string) {
  const row = await db.selectFrom('organizations').select(['id', 'slug', 'name']).where(isUuid(ref) ? 'id' : 'slug', '=', ref).executeTakeFirst();
  if (row) return row;
  const all = (await db.selectFrom('organizations').select('slug').orderBy('slug').execute()).map((o) => o.slug);
  throw new ApiError('ORGANIZATION_NOT_FOUND', `No organization '${ref}'. Organizations: ${named(all, 'none yet (seqflow org create)')}`);
}

export async function findProject(db: Kysely<ReadModels>, ref: { org?: string | undefined; project: string }) {
  const organization = ref.org === undefined ? undefined : await findOrganization(db, ref.org);
  let query = db
    .selectFrom('projects as p')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select(['p.id', 'p.slug', 'p.name', 'p.organization_id', 'o.slug as organization_slug'])
    .where(isUuid(ref.project) ? 'p.id' : 'p.slug', '=', ref.project)
    .orderBy('o.slug');
  if (organization) query = query.where('p.organization_id', '=', organization.id);
  const rows = await query.execute();
  if (rows.length === 1) return rows[0]!;
  if (rows.length > 1) throw new ApiError('VALIDATION_FAILED', `Project '${ref.project}' is in several organizations (${rows.map((r) => `${r.organization_slug}/${r.slug}`).join(', ')}): add --org`);
  let others = db.selectFrom('projects as p').innerJoin('organizations as o', 'o.id', 'p.organization_id').select(['o.slug as org', 'p.slug']).orderBy('o.slug').orderBy('p.slug');
  if (organization) others = others.where('p.organization_id', '=', organization.id);
  const names = (await others.execute()).map((r) => `${r.org}/${r.slug}`);
  throw new ApiError('PROJECT_NOT_FOUND', `No project '${ref.project}'${organization ? ` in ${organization.slug}` : ''}. Projects: ${named(names, 'none yet (seqflow project create)')}`);
}

export async function findFlow(db: Kysely<ReadModels>, ref: { org?: string | undefined; project?: string | undefined; flow: string }) {
  const project = ref.project === undefined ? undefined : await findProject(db, { org: ref.org, project: ref.project });
  const organization = project === undefined && ref.org !== undefined ? await findOrganization(db, ref.org) : undefined;
  let query = db
    .selectFrom('flows as f')
    .innerJoin('projects as p', 'p.id', 'f.project_id')
    .innerJoin('organizations as o', 'o.id', 'f.organization_id')
    .select(['f.id', 'f.slug', 'f.name', 'f.project_id', 'p.slug as project_slug', 'o.slug as organization_slug'])
    .where(isUuid(ref.flow) ? 'f.id' : 'f.slug', '=', ref.flow)
    .orderBy('o.slug')
    .orderBy('p.slug');
  if (project) query = query.where('f.project_id', '=', project.id);
  if (organization) query = query.where('f.organization_id', '=', organization.id);
  const rows = await query.execute();
  if (rows.length === 1) return rows[0]!;
  if (rows.length > 1) throw new ApiError('VALIDATION_FAILED', `Flow '${ref.flow}' is in several projects (${rows.map((r) => `${r.organization_slug}/${r.project_slug}/${r.slug}`).join(', ')}): add --org and --project`);
  let others = db.selectFrom('flows as f').innerJoin('projects as p', 'p.id', 'f.project_id').innerJoin('organizations as o', 'o.id', 'f.organization_id').select(['o.slug as org', 'p.slug as project', 'f.slug']).orderBy('o.slug').orderBy('p.slug').orderBy('f.slug');
  if (project) others = others.where('f.project_id', '=', project.id);
  if (organization) others = others.where('f.organization_id', '=', organization.id);
  const names = (await others.execute()).map((r) => `${r.org}/${r.project}/${r.slug}`);
  const where = project ? ` in ${project.organization_slug}/${project.slug}` : organization ? ` in ${organization.slug}` : '';
  throw new ApiError('FLOW_NOT_FOUND', `No flow '${ref.flow}'${where}. Flows: ${named(names, 'none yet (seqflow flow import, or seqflow flow create)')}`);
}

/** Every organization, with how many projects each has. */
export async function listOrganizations(db: Kysely<ReadModels>) {
  const rows = await db
    .selectFrom('organizations as o')
    .select(['o.id', 'o.slug', 'o.name', 'o.created_at'])
    .select((eb) => eb.selectFrom('projects as p').select(eb.fn.countAll<string>().as('n')).whereRef('p.organization_id', '=', 'o.id').as('projects'))
    .orderBy('o.slug')
    .execute();
  return rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, projects: Number(r.projects ?? 0), createdAt: new Date(r.created_at).toISOString() }));
}

/** The projects of one organization, or of all. */
export async function listProjects(db: Kysely<ReadModels>, organizationId?: string) {
  let query = db.selectFrom('projects as p').innerJoin('organizations as o', 'o.id', 'p.organization_id').select(['p.id', 'p.slug', 'p.name', 'o.slug as organization', 'p.created_at']).orderBy('o.slug').orderBy('p.slug');
  if (organizationId) query = query.where('p.organization_id', '=', organizationId);
  return (await query.execute()).map((r) => ({ id: r.id, organization: r.organization, slug: r.slug, name: r.name, createdAt: new Date(r.created_at).toISOString() }));
}

/** A project's API keys, or an organization's, or all: never the key itself (only its hash is stored), its id and prefix. */
export async function listApiKeys(db: Kysely<ReadModels>, scope: { organizationId?: string; projectId?: string }) {
  let query = db
    .selectFrom('api_keys as k')
    .innerJoin('projects as p', 'p.id', 'k.project_id')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .select(['k.key_id', 'k.key_prefix', 'k.environment', 'k.created_at', 'k.revoked_at', 'p.slug as project', 'o.slug as organization'])
    .orderBy('k.created_at', 'desc');
  if (scope.organizationId) query = query.where('k.organization_id', '=', scope.organizationId);
  if (scope.projectId) query = query.where('k.project_id', '=', scope.projectId);
  return (await query.execute()).map((r) => ({
    keyId: r.key_id,
    organization: r.organization,
    project: r.project,
    environment: r.environment,
    // What the key starts with: enough to recognize it, not to use it.
    startsWith: `${r.key_prefix}_${r.environment}_${r.key_id}_`,
    createdAt: new Date(r.created_at).toISOString(),
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  }));
}

/**
 * A test case named by its id, or by its name within a flow (`flow` narrows the name, as a flow's
 * own slug or id, with its project and organization); a name several flows' cases share says which.
 */
export async function findTestCase(db: Kysely<ReadModels>, ref: { org?: string | undefined; project?: string | undefined; flow?: string | undefined; testCase: string }) {
  const flow = ref.flow === undefined ? undefined : await findFlow(db, { org: ref.org, project: ref.project, flow: ref.flow });
  let query = db
    .selectFrom('test_cases as c')
    .innerJoin('flows as f', 'f.id', 'c.flow_id')
    .select(['c.id', 'c.name', 'c.flow_id', 'f.slug as flow_slug'])
    .where(isUuid(ref.testCase) ? 'c.id' : 'c.name', '=', ref.testCase)
    .orderBy('f.slug');
  if (flow) query = query.where('c.flow_id', '=', flow.id);
  const rows = await query.execute();
  if (rows.length === 1) return rows[0]!;
  if (rows.length > 1) {
    const where = flow ? `flow ${flow.slug} has ${rows.length} cases named so: use an id (${rows.map((r) => r.id).join(', ')})` : `several flows have one (${rows.map((r) => r.flow_slug).join(', ')}): add --flow`;
    throw new ApiError('VALIDATION_FAILED', `Test case '${ref.testCase}': ${where}`);
  }
  const others = flow ? (await db.selectFrom('test_cases').select('name').where('flow_id', '=', flow.id).orderBy('name').execute()).map((r) => r.name) : [];
  throw new ApiError('TEST_CASE_NOT_FOUND', `No test case '${ref.testCase}'${flow ? ` in flow ${flow.slug}. Its cases: ${named(others, 'none yet (seqflow test add)')}` : ' (add --flow to look among one flow\'s cases by name)'}`);
}
