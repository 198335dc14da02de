import { loadStream } from '../../eventstore/streams.ts';
import { ApiError } from '../../domain/errors/apiError.ts';
import { parseApiKey } from '../../domain/apiKeys/apiKeyFormat.ts';
import { type MemberRole, isAdminRole } from '../../domain/organizations/memberRole.ts';
import { organization } from '../../domain/organizations/organization.ts';
import { organizationStream } from '../../domain/organizations/organizationEvents.ts';
import type { Principal } from '../../domain/events/eventMetadata.ts';
import type { EventStore } from '../../eventstore/eventStore.ts';
import type { ApiKeyAuthenticator } from './apiKeyAuthenticator.ts';
import type { JwtVerifier } from './jwtVerifier.ts';

export interface OrganizationCaller {
  principal: Principal;
  role: MemberRole;
}

/**
 * Who calls an organization-scoped endpoint, and with which role: 401 for missing or invalid
 * credentials, 404 for an unknown organization, 403 for a non-member (or, with `admin`, a member
 * below admin). An API key acts as a member of its project's organization, never as an admin; a
 * JWT's `sub` is looked up among the organization's members.
 */
export function createOrganizationAuth(eventStore: EventStore, apiKeys: ApiKeyAuthenticator, jwt: JwtVerifier | undefined) {
  return async function authorize(authorization: string | undefined, organizationId: string, need: 'member' | 'admin'): Promise<OrganizationCaller> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new ApiError('UNAUTHENTICATED', 'Send `Authorization: Bearer <API key or token>`');
    let caller: { principal: Principal; keyOrganizationId?: string };
    if (parseApiKey(token)) {
      const key = await apiKeys(`Bearer ${token}`);
      caller = { principal: { kind: 'apiKey', id: key.keyId }, keyOrganizationId: key.organizationId };
    } else if (jwt) {
      caller = { principal: { kind: 'user', id: (await jwt(token)).subject } };
    } else {
      throw new ApiError('UNAUTHENTICATED', 'Invalid API key (token authentication is not configured)');
    }

    // The organization as the log knows it: fresh, even before the read models catch up.
    const { state } = await loadStream(eventStore, organizationStream(organizationId), organization);
    if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', `No organization ${organizationId}`);

    let role: MemberRole | undefined;
    if (caller.keyOrganizationId !== undefined) role = caller.keyOrganizationId === organizationId ? 'member' : undefined;
    else role = state.members.get(caller.principal.id);
    if (!role) throw new ApiError('FORBIDDEN', 'Not a member of this organization');
    if (need === 'admin' && !isAdminRole(role)) throw new ApiError('FORBIDDEN', 'Only an admin or owner of the organization may do this');
    return { principal: caller.principal, role };
  };
}
