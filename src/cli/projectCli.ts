import { type Command, Option } from 'commander';
import { cliPrincipal, withRuntime, withoutPosition } from './cliSupport.ts';
import { registerRetentionCommand } from './retentionCli.ts';
import { ORG_HELP, PROJECT_HELP, type ProjectRef, organizationSlugOf, projectOf } from './cliRefs.ts';

/** `seqflow project create|list` and `seqflow apikey create|list|revoke`. */
export function registerProjectCommands(program: Command) {
  const project = program.command('project').description('projects');
  project
    .command('create')
    .requiredOption('--org <slug|id>', ORG_HELP)
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .action((o: { org: string; slug: string; name: string }) =>
      withRuntime(async (rt) => {
        const { createProject } = await import('../commands/projectCommands.ts');
        const { id, slug, organizationId } = await createProject(rt.commands, { organizationSlug: await organizationSlugOf(rt, o.org), slug: o.slug, name: o.name }, cliPrincipal);
        return { id, slug, organizationId };
      }),
    );
  project
    .command('list')
    .description("an organization's projects, or every project")
    .option('--org <slug|id>', ORG_HELP)
    .action((o: { org?: string }) =>
      withRuntime(async (rt) => {
        const { findOrganization, listProjects } = await import('../queries/namedEntities.ts');
        return listProjects(rt.db, o.org === undefined ? undefined : (await findOrganization(rt.db, o.org)).id);
      }),
    );

  registerRetentionCommand(project, 'project');

  const apikey = program.command('apikey').description('project API keys');
  apikey
    .command('create')
    .option('--org <slug|id>', ORG_HELP)
    .requiredOption('--project <slug|id>', PROJECT_HELP)
    .addOption(new Option('--env <environment>').choices(['live', 'test']).makeOptionMandatory())
    .action((o: ProjectRef & { env: string }) =>
      withRuntime(async (rt) => {
        const { createApiKey } = await import('../commands/apiKeyCommands.ts');
        const found = await projectOf(rt, o);
        const { key, keyId } = await createApiKey(rt.commands, { organizationSlug: found.organization_slug, projectSlug: found.slug, environment: o.env }, cliPrincipal);
        process.stderr.write('This is the only time the full key is shown. Store it now.\n');
        return { key, keyId };
      }),
    );
  apikey
    .command('list')
    .description("a project's keys, an organization's, or all: id, environment, what the key starts with, created, revoked (never the key: only its hash is kept)")
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .action((o: { org?: string; project?: string }) =>
      withRuntime(async (rt) => {
        const { findOrganization, listApiKeys } = await import('../queries/namedEntities.ts');
        if (o.project !== undefined) return listApiKeys(rt.db, { projectId: (await projectOf(rt, { org: o.org, project: o.project })).id });
        return listApiKeys(rt.db, o.org === undefined ? {} : { organizationId: (await findOrganization(rt.db, o.org)).id });
      }),
    );
  apikey
    .command('revoke')
    .description('revoke a key: refused from the moment this command returns')
    .requiredOption('--key-id <id>')
    .action((o: { keyId: string }) =>
      withRuntime(async (rt) => {
        const { revokeApiKey } = await import('../commands/apiKeyCommands.ts');
        return withoutPosition(await revokeApiKey(rt.commands, { keyId: o.keyId }, cliPrincipal));
      }),
    );
}
