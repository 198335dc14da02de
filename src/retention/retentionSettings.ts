import { type CommandDependencies, type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { effectiveRunDays, retention } from '../domain/retention/retention.ts';
import { retentionStream } from '../domain/retention/retentionEvents.ts';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../projections/readModelSchema.ts';

/** Sets an organization's retention period (`projectId` null) or one of its projects'. */
export async function setRetention(deps: CommandDependencies, input: { organizationId: string; projectId: string | null; runDays: number | null }, metadata: CommandMetadata) {
  const result = await handleCommand(deps, retentionStream(input.organizationId), retention, { type: 'SetRetention', data: input }, metadata);
  return { organizationId: input.organizationId, projectId: input.projectId, runDays: input.runDays, changed: result.events.length > 0 };
}

/** An organization's periods as the read model has them: its own, and each project's with the period that applies to it. */
export async function retentionOf(db: Kysely<ReadModels>, organizationId: string) {
  const rows = await db.selectFrom('retention_periods').select(['project_id', 'run_days', 'set_at']).where('organization_id', '=', organizationId).execute();
  const projects = await db.selectFrom('projects').select(['id', 'slug']).where('organization_id', '=', organizationId).orderBy('slug').execute();
  const organizationDays = rows.find((r) => r.project_id === '')?.run_days ?? null;
  return {
    organizationId,
    runDays: organizationDays,
    projects: projects.map((p) => {
      const projectDays = rows.find((r) => r.project_id === p.id)?.run_days ?? null;
      return { projectId: p.id, slug: p.slug, runDays: projectDays, appliedRunDays: effectiveRunDays(organizationDays, projectDays) };
    }),
  };
}
