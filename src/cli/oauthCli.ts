import type { Command } from 'commander';
import { oauthTablesOf } from '../queries/oauthStoreTables.ts';
import { cliPrincipal, withRuntime } from './cliSupport.ts';

/** `seqflow oauth clients|revoke|rotate-keys`: the assistants registered at the embedded authorization server, and its signing key. */
export function registerOAuthCommands(program: Command) {
  const oauth = program.command('oauth').description('the embedded authorization server: registered assistants and their sign-ins');
  oauth
    .command('clients')
    .description('list the registered clients, newest first: name, redirect URIs, whether anyone signed in with it, its grants, the members it acts for')
    .option('--org <slug>', "only the assistants a member of this organization signed in with (an owner's view of their organization)")
    .action((o: { org?: string }) =>
      withRuntime(async (rt) => {
        const { clientsOfMembers, listOAuthClients } = await import('../queries/oauthClientQueries.ts');
        const { memberSubjectsOf } = await import('../queries/memberQueries.ts');
        const clients = await listOAuthClients(oauthTablesOf(rt.db), rt.masterKey);
        return { clients: o.org ? clientsOfMembers(clients, await memberSubjectsOf(rt.db, o.org)) : clients };
      }, { catchUp: false }),
    );
  oauth
    .command('revoke')
    .description('end a client: its registration, sign-ins and refresh tokens are deleted and its access tokens refused at once (recorded as an event)')
    .requiredOption('--client <id>')
    .action((o: { client: string }) =>
      withRuntime(async (rt) => {
        const { revokeOAuthClient } = await import('../commands/oauthClientCommands.ts');
        return revokeOAuthClient({ ...rt.commands, oauth: oauthTablesOf(rt.db), masterKey: rt.masterKey }, o.client, cliPrincipal);
      }, { catchUp: false }),
    );
  oauth
    .command('rotate-keys')
    .description('a new signing key for the embedded authorization server; older keys keep verifying their tokens, so no one is signed out (recorded as an event)')
    .action(() =>
      withRuntime(async (rt) => {
        const { rotateOAuthSigningKey } = await import('../commands/oauthKeyCommands.ts');
        return rotateOAuthSigningKey({ ...rt.commands, oauth: oauthTablesOf(rt.db), masterKey: rt.masterKey }, cliPrincipal);
      }, { catchUp: false }),
    );
}
