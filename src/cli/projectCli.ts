import { type Command, Option } from 'commander';
import { cliPrincipal, withRuntime, withoutPosition } from './cliSupport.ts';

/** `seqflow project create` and `seqflow apikey ...`. */
export function registerProjectCommands(program: Command) {
  program
    .command('project')
    .description('projects')
    .command('create')
    .requiredOption('--org <slug>')
    .requiredOption('--slug <slug>')
    .requiredOption('--name <name>')
    .action((o: { org: string; slug: string; name: string }) =>
      withRuntime(async (rt) => {
        const { createProject } = await import('../commands/projectCommands.ts');
        const { id, slug, organizationId } = await createProject(rt.commands, { organizationSlug: o.org, slug: o.slug, name: o.name }, cliPrincipal);
        return { id, slug, organizationId };
      }),
    );

  const apikey = program.command('apikey').description('project API keys');
  apikey
    .command('create')
    .requiredOption('--org <slug>')
    .requiredOption('--project <slug>')
    .addOption(new Option('--env <environment>').choices(['live', 'test']).makeOptionMandatory())
    .action((o: { org: string; project: string; env: string }) =>
      withRuntime(async (rt) => {
        const { createApiKey } = await import('../commands/apiKeyCommands.ts');
        const { key, keyId } = await createApiKey(rt.commands, { organizationSlug: o.org, projectSlug: o.project, environment: o.env }, cliPrincipal);
        process.stderr.write('This is the only time the full key is shown. Store it now.\n');
        return { key, keyId };
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
