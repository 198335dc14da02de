import { randomUUID } from 'node:crypto';
import { ApiError } from '../domain/errors/apiError.ts';
import { project } from '../domain/projects/project.ts';
import { projectStream } from '../domain/projects/projectEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand, withCorrelation } from './commandHandler.ts';
import { findOrganizationId } from './organizationCommands.ts';
import { requireSlugOwner } from './slugLookup.ts';
import { reserveSlug } from './slugReservationCommands.ts';

export async function createProject(
  deps: CommandDependencies,
  input: { organizationSlug: string; slug: string; name: string },
  callerMetadata: CommandMetadata,
) {
  const metadata = withCorrelation(callerMetadata);
  if (!input.name.trim()) throw new ApiError('VALIDATION_FAILED', 'name must not be empty');
  const organizationId = await findOrganizationId(deps, input.organizationSlug);
  const id = await reserveSlug(deps, 'project', organizationId, input.slug, randomUUID(), projectStream, metadata);
  const result = await handleCommand(
    deps,
    projectStream(id),
    project,
    { type: 'CreateProject', data: { projectId: id, organizationId, slug: input.slug, name: input.name.trim() } },
    metadata,
  );
  return { id, slug: input.slug, organizationId, position: result.position };
}

export async function findProject(deps: CommandDependencies, organizationSlug: string, projectSlug: string) {
  const organizationId = await findOrganizationId(deps, organizationSlug);
  const projectId = await requireSlugOwner(deps.eventStore, 'project', organizationId, projectSlug, projectStream);
  return { organizationId, projectId };
}
