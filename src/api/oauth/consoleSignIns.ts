import type { Kysely } from 'kysely';
import type { CommandDependencies, CommandMetadata } from '../../commands/commandHandler.ts';
import { revokeOAuthClient } from '../../commands/oauthClientCommands.ts';
import { approveSignInRequest } from '../../commands/signInApprovalCommands.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import { normalizeSignInRequestCode } from '../../domain/signIn/signInRequestCode.ts';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import { clientsOfMembers, listOAuthClients } from '../../queries/oauthClientQueries.ts';
import { memberSubjectsOf } from '../../queries/memberQueries.ts';
import { oauthTablesOf } from '../../queries/oauthStoreTables.ts';
import { findPendingSignIn } from '../../queries/signInRequests.ts';
import { requesterOf } from './signInAsks.ts';

/**
 * Assistants' sign-ins as the console handles them: a pending sign-in looked up by the request code
 * its page shows (who asks, where it returns, what it may do) and approved for a member; the
 * registered clients listed, and one ended (as `seqflow oauth clients|revoke`). Null where the
 * service signs assistants in with an external issuer (OAUTH_ISSUER): there is nothing to approve here.
 */
export function createConsoleSignIns(deps: { commands: CommandDependencies; db: Kysely<ReadModels>; masterKey: Buffer; mcpReadOnly: string }) {
  const oauth = oauthTablesOf(deps.db);
  const codeOf = (typed: string) => {
    const code = normalizeSignInRequestCode(typed);
    if (!code) throw new ApiError('VALIDATION_FAILED', 'A request code is 8 letters and digits, as the sign-in page shows it (e.g. K7QM-3XPD)');
    return code;
  };
  const pending = async (typed: string) => {
    const requestCode = codeOf(typed);
    const found = await findPendingSignIn(oauth, deps.masterKey, requestCode);
    if (!found) throw new ApiError('SIGN_IN_REQUEST_NOT_FOUND', `No sign-in is waiting with request code ${requestCode}: it may have expired (a sign-in page lasts 10 minutes) or been finished; start it again from the assistant`);
    return { requestCode, clientId: found.clientId, ...requesterOf(found.params, found.clientName, deps), clientName: found.clientName, expiresAt: found.expiresAt };
  };
  return {
    pending,
    /** Approves the pending sign-in for `subject`; it lasts as long as its page does. */
    async approve(input: { requestCode: string; subject: string }, metadata: CommandMetadata) {
      const request = await pending(input.requestCode);
      return approveSignInRequest({ ...deps.commands, db: deps.db }, { requestCode: request.requestCode, subject: input.subject, clientId: request.clientId, readOnly: request.readOnly, expiresAt: request.expiresAt }, metadata);
    },
    /** The registered assistants, each with the members it acts for; with `organizationSlug`, those a member of it signed in with. */
    async clients(organizationSlug?: string) {
      const clients = await listOAuthClients(oauth, deps.masterKey);
      return organizationSlug ? clientsOfMembers(clients, await memberSubjectsOf(deps.db, organizationSlug)) : clients;
    },
    end: (clientId: string, metadata: CommandMetadata) => revokeOAuthClient({ ...deps.commands, oauth, masterKey: deps.masterKey }, clientId, metadata),
  };
}

export type ConsoleSignIns = ReturnType<typeof createConsoleSignIns>;
