import type { Command } from 'commander';
import { oauthTablesOf } from '../queries/oauthStoreTables.ts';
import { cliPrincipal, withRuntime } from './cliSupport.ts';

/** `seqflow oauth clients|revoke|rotate-keys`: the assistants registered at the embedded authorization server, and its signing key. */
export function registerOAuthCommands(program: Command) {
  const oauth = program.command('oauth').description('the embedded authorization server: registered assistants and their sign-ins');
  oauth
    .command('clients')
    .description('list the registered clients, newest first: name, redirect URIs, whether anyone signed in with it, its grants')
    .action(() =>
      withRuntime(async (rt) => {
        const { listOAuthClients } = await import('../queries/oauthClientQueries.ts');
        return { clients: await listOAuthClients(oauthTablesOf(rt.db), rt.masterKey) };
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
