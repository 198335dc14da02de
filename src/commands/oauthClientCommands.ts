import type { Kysely } from 'kysely';
import { deleteOAuthClient, listOAuthClients } from '../queries/oauthClientQueries.ts';
import type { OAuthTables } from '../queries/oauthStoreTables.ts';
import { oauthClient } from '../domain/oauth/oauthClient.ts';
import { type SIGN_IN_END_REASONS, oauthClientStream } from '../domain/oauth/oauthClientEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/**
 * `seqflow oauth revoke --client ID`: the revocation is recorded first (who ended which client),
 * then the client's registration, grants and tokens are deleted: its access tokens are refused at
 * once (their grant is gone), its refresh tokens with them. A crash between the two is finished by
 * running the command again (a second revocation records nothing and deletes what is left).
 */
export async function revokeOAuthClient(deps: CommandDependencies & { oauth: Kysely<OAuthTables>; masterKey: Buffer }, clientId: string, metadata: CommandMetadata) {
  const [client] = await listOAuthClients(deps.oauth, deps.masterKey, { clientId });
  const result = await handleCommand(
    deps,
    oauthClientStream(clientId),
    oauthClient,
    { type: 'Revoke', data: { clientId, clientName: client?.clientName ?? null, grantsEnded: client?.grants ?? 0, registered: client !== undefined } },
    metadata,
  );
  await deleteOAuthClient(deps.oauth, clientId);
  return { clientId, revoked: true, recorded: result.events.length > 0 };
}

/**
 * A member's sign-in of a client, recorded before the grant is made: the log says which assistant
 * acts for whom, and from when. A revoked client is refused here too.
 */
export async function recordOAuthSignIn(deps: CommandDependencies, data: { clientId: string; clientName: string | null; subject: string; resources: string[] }, metadata: CommandMetadata) {
  await handleCommand(deps, oauthClientStream(data.clientId), oauthClient, { type: 'SignIn', data }, metadata);
}

/** A sign-in that ended at the authorization server (its grant revoked), with why: recorded for the client. */
export async function recordOAuthSignInEnded(deps: CommandDependencies, data: { clientId: string; subject: string | null; reason: (typeof SIGN_IN_END_REASONS)[number] }, metadata: CommandMetadata) {
  await handleCommand(deps, oauthClientStream(data.clientId), oauthClient, { type: 'EndSignIn', data }, metadata);
}
