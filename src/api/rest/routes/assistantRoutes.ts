import { parsePath } from '../queryParameters.ts';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandDependencies } from '../../../commands/commandHandler.ts';
import { revokeOAuthClient } from '../../../commands/oauthClientCommands.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { loadStream } from '../../../eventstore/streams.ts';
import { organization } from '../../../domain/organizations/organization.ts';
import { organizationStream } from '../../../domain/organizations/organizationEvents.ts';
import type { ReadModels } from '../../../projections/readModelSchema.ts';
import { clientsOfMembers, listOAuthClients } from '../../../queries/oauthClientQueries.ts';
import { oauthTablesOf } from '../../../queries/oauthStoreTables.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';
import { requestOrigin } from '../../http/requestTracing.ts';
import { documented } from '../openapi/routeDocs.ts';
import { ORGANIZATION_LOOKUP } from '../openapi/operationErrors.ts';
import { assistantEndedSchema, organizationAssistantsSchema } from '../openapi/responseSchemas.ts';

const orgPath = z.object({ org_id: z.string().meta({ description: 'Organization id' }) });
const clientPath = orgPath.extend({ client_id: z.string().max(2000).meta({ description: 'The assistant\'s client id (a metadata document\'s URL, encoded)' }) });

/**
 * An organization's assistants, for its owners and admins with a member's token (a browser's
 * sign-in at the embedded authorization server, resource = the public URL): the assistants its
 * members signed in with, and ending one (as `seqflow oauth revoke`, recorded with the admin as
 * principal). Another organization's assistants are not found here.
 */
export function assistantRoutes(deps: { commands: CommandDependencies; db: Kysely<ReadModels>; masterKey: Buffer }, authorize: ReturnType<typeof createOrganizationAuth>) {
  const oauth = oauthTablesOf(deps.db);
  /** The organization's assistants (or the one `only` names, if it is one of them), each with only the organization's own members among those it acts for. */
  const assistantsOf = async (organizationId: string, only?: { clientId: string }) => {
    const { state } = await loadStream(deps.commands.eventStore, organizationStream(organizationId), organization);
    const members = new Set(state.status === 'created' ? state.members.keys() : []);
    return clientsOfMembers(await listOAuthClients(oauth, deps.masterKey, only), members).map((client) => ({ ...client, subjects: client.subjects.filter((subject) => members.has(subject)) }));
  };
  return async (app: FastifyInstance) => {
    const tags = ['Assistants'];
    const list = documented({ operationId: 'listOrganizationAssistants', summary: "The assistants the organization's members signed in with (owners and admins)", tags, params: orgPath, response: { 200: organizationAssistantsSchema }, errors: ORGANIZATION_LOOKUP }, ['operatorToken']);
    app.get('/organizations/:org_id/assistants', { schema: list }, async (request) => {
      const { org_id } = parsePath(orgPath, request.params);
      await authorize(request.headers.authorization, org_id, 'admin');
      const items = (await assistantsOf(org_id)).map(({ clientId, clientName, redirectUris, registeredAt, subjects }) => ({ clientId, clientName, redirectUris, registeredAt, subjects }));
      return { items };
    });

    const end = documented({ operationId: 'endOrganizationAssistant', summary: 'End an assistant a member signed in with: its sign-ins and tokens end at once (owners and admins)', tags, params: clientPath, response: { 200: assistantEndedSchema }, errors: [...ORGANIZATION_LOOKUP, 'NOT_FOUND'] }, ['operatorToken']);
    app.delete('/organizations/:org_id/assistants/:client_id', { schema: end }, async (request) => {
      const { org_id, client_id } = parsePath(clientPath, request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'admin');
      if ((await assistantsOf(org_id, { clientId: client_id })).length === 0) throw new ApiError('NOT_FOUND', `No assistant ${client_id} signed in by a member of this organization`);
      const ended = await revokeOAuthClient({ ...deps.commands, oauth, masterKey: deps.masterKey }, client_id, { principal: caller.principal, ...requestOrigin(request) });
      return { clientId: ended.clientId, revoked: true as const, recorded: ended.recorded };
    });
  };
}
