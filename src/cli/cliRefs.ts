import { ApiError } from '../domain/errors/apiError.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { findFlow, findOrganization, findProject, findTestCase } from '../queries/namedEntities.ts';

/**
 * One vocabulary for naming things on the command line: `--org`, `--project` and `--flow` each take
 * a slug or an id. A flow's or project's slug may stand alone while it is unique; otherwise the
 * error names the candidates and what to add. Unknown names are errors that list what exists.
 */
export const ORG_HELP = 'organization: slug or id';
export const PROJECT_HELP = 'project: slug (with --org when not unique) or id';
export const FLOW_HELP = 'flow: slug (with --project/--org when not unique) or id';
export const CASE_HELP = 'test case: name (with --flow when not unique) or id';

export interface OrgRef {
  org: string;
}
export interface ProjectRef {
  org?: string;
  project: string;
}
export interface FlowRef {
  org?: string;
  project?: string;
  flow: string;
}

const NOT_FOUND = new Set(['ORGANIZATION_NOT_FOUND', 'PROJECT_NOT_FOUND', 'FLOW_NOT_FOUND', 'TEST_CASE_NOT_FOUND']);

/**
 * Names are looked up in the read models, which may not yet show what another process (the API, a
 * worker) has just written: a name not found there is looked up again after this process has
 * brought the read models up to the log's head, so a command sees every write made before it ran.
 */
async function named<T>(rt: Runtime, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (error) {
    if (!(error instanceof ApiError && NOT_FOUND.has(error.code))) throw error;
    await rt.projections.catchUp();
    return find();
  }
}

export const organizationOf = (rt: Runtime, ref: OrgRef) => named(rt, () => findOrganization(rt.db, ref.org));
export const projectOf = (rt: Runtime, ref: ProjectRef) => named(rt, () => findProject(rt.db, ref));
export const flowIdOf = async (rt: Runtime, ref: FlowRef) => (await named(rt, () => findFlow(rt.db, ref))).id;
export const testCaseIdOf = async (rt: Runtime, ref: Partial<FlowRef> & { case: string }) => (await named(rt, () => findTestCase(rt.db, { ...ref, testCase: ref.case }))).id;
/** The slug of the organization `ref` names (a slug or an id): what the organization commands take. */
export const organizationSlugOf = async (rt: Runtime, ref: string) => (await named(rt, () => findOrganization(rt.db, ref))).slug;
