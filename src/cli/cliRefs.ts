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

export const organizationOf = (rt: Runtime, ref: OrgRef) => findOrganization(rt.db, ref.org);
export const projectOf = (rt: Runtime, ref: ProjectRef) => findProject(rt.db, ref);
export const flowIdOf = async (rt: Runtime, ref: FlowRef) => (await findFlow(rt.db, ref)).id;
export const testCaseIdOf = async (rt: Runtime, ref: Partial<FlowRef> & { case: string }) => (await findTestCase(rt.db, { ...ref, testCase: ref.case })).id;
/** The slug of the organization `ref` names (a slug or an id): what the organization commands take. */
export const organizationSlugOf = async (rt: Runtime, ref: string) => (await findOrganization(rt.db, ref)).slug;
