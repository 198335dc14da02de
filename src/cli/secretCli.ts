import type { Command } from 'commander';
import { cliPrincipal, readSecret, withRuntime } from './cliSupport.ts';
import { ORG_HELP, organizationOf } from './cliRefs.ts';

const NAME_HELP = 'the name requests use as {{secrets.<name>}} (a letter, then letters, digits or _)';

/** `seqflow secret set|list|delete`: the organization's secrets for http requests (docs/flows.md). */
export function registerSecretCommands(program: Command) {
  const secret = program.command('secret').description("the organization's secrets, named by http requests' URLs and headers as {{secrets.<name>}}; stored encrypted, never shown again");
  secret
    .command('set')
    .description('set a secret (a new version when the name exists), its value read from standard input or SEQFLOW_SECRET_VALUE, never from the command line')
    .requiredOption('--org <slug|id>', ORG_HELP)
    .requiredOption('--name <name>', NAME_HELP)
    .action((o: { org: string; name: string }) =>
      withRuntime(async (rt) => {
        const value = await readSecret('SEQFLOW_SECRET_VALUE', `value of the secret ${o.name}`);
        const { setSecret } = await import('../commands/secretCommands.ts');
        const { id: organizationId } = await organizationOf(rt, o);
        return { organizationId, ...(await setSecret(rt.commands, { organizationId, name: o.name, value }, rt.masterKey, cliPrincipal)) };
      }),
    );
  secret
    .command('list')
    .description("the organization's secrets: names, versions and when each was set (never a value)")
    .requiredOption('--org <slug|id>', ORG_HELP)
    .action((o: { org: string }) =>
      withRuntime(async (rt) => {
        const { listSecrets } = await import('../commands/secretCommands.ts');
        const { id: organizationId } = await organizationOf(rt, o);
        return { organizationId, secrets: await listSecrets(rt.commands, organizationId) };
      }),
    );
  secret
    .command('delete')
    .description('remove a secret: requests naming it fail with HTTP_SECRET_MISSING until it is set again')
    .requiredOption('--org <slug|id>', ORG_HELP)
    .requiredOption('--name <name>', NAME_HELP)
    .action((o: { org: string; name: string }) =>
      withRuntime(async (rt) => {
        const { deleteSecret } = await import('../commands/secretCommands.ts');
        const { id: organizationId } = await organizationOf(rt, o);
        return deleteSecret(rt.commands, { organizationId, name: o.name }, cliPrincipal);
      }),
    );
}
