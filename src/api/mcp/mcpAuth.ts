import type { Kysely } from 'kysely';
import { parseApiKey } from '../../domain/apiKeys/apiKeyFormat.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import type { Principal } from '../../domain/events/eventMetadata.ts';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import { membershipsOf } from '../../queries/memberQueries.ts';
import type { JwtVerifier } from '../auth/jwtVerifier.ts';
import { MCP_READ_SCOPE, MCP_SCOPE } from '../oauth/embeddedAuthorizationServer.ts';

export interface McpCaller {
  principal: Principal;
  /** The organizations the subject is a member of: all it may see. */
  organizationIds: string[];
  /** Only the reading tools: the read-only endpoint, or a token scoped `mcp:read` without `mcp`. */
  readOnly: boolean;
}

/** Which endpoint is called: the whole tool set, or the read-only one. */
export type McpEndpoint = 'full' | 'readOnly';

/**
 * Who calls the assistant endpoint: an OAuth-issued JWT (asymmetric signature, issuer, `exp`) whose
 * audience is this endpoint's canonical URL, and nothing else. API keys are refused: assistants
 * sign in through their OAuth flow. The subject acts as the member it is, in every organization
 * the members read model lists for it.
 */
export function createMcpAuthenticator(db: Kysely<ReadModels>, jwt: JwtVerifier | undefined, resources: { resource: string; readOnly: { resource: string } }) {
  return async function authenticate(authorization: string | undefined, endpoint: McpEndpoint = 'full'): Promise<McpCaller> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new ApiError('UNAUTHENTICATED', 'Sign in: send the OAuth access token as `Authorization: Bearer <token>`');
    if (parseApiKey(token)) throw new ApiError('UNAUTHENTICATED', 'API keys are not accepted here: assistants sign in through their OAuth flow');
    if (!jwt) throw new ApiError('UNAUTHENTICATED', 'This server has no OAuth issuer configured (OAUTH_ISSUER)');
    // The read-only endpoint also takes a token of the full one: it can only do less there.
    const audience = endpoint === 'readOnly' ? [resources.readOnly.resource, resources.resource] : resources.resource;
    const { subject, clientId, scopes } = await jwt(token, { audience });
    const memberships = await membershipsOf(db, subject);
    return {
      principal: { kind: 'user', id: subject, via: 'mcp', ...(clientId ? { clientId } : {}) },
      organizationIds: memberships.map((m) => m.organization_id),
      readOnly: endpoint === 'readOnly' || (scopes.includes(MCP_READ_SCOPE) && !scopes.includes(MCP_SCOPE)),
    };
  };
}

export type McpAuthenticator = ReturnType<typeof createMcpAuthenticator>;
