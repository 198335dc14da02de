import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { MemberRole } from './memberRole.ts';
import type { EncryptedSecret, OrganizationEvent } from './organizationEvents.ts';

export type OrganizationState =
  | { status: 'none' }
  | {
      status: 'created';
      organizationId: string;
      slug: string;
      name: string;
      members: Record<string, MemberRole>;
      providerKey: { encryptedKey: EncryptedSecret; keyHint: string; baseUrl: string | null } | null;
    };

export type OrganizationCommand =
  | { type: 'CreateOrganization'; data: { organizationId: string; slug: string; name: string; initialCredits: number } }
  | { type: 'AddMember'; data: { userSubject: string; role: MemberRole } }
  | { type: 'GrantCredits'; data: { tokens: number; note: string | null } }
  | { type: 'SetProviderKey'; data: { encryptedKey: EncryptedSecret; keyHint: string; baseUrl: string | null } };

export const organization: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { status: 'created', ...event.data, members: {}, providerKey: null };
      case 'CreditsGranted':
        return state;
      case 'ProviderKeySet': {
        if (state.status !== 'created') return state;
        const { encryptedKey, keyHint, baseUrl } = event.data;
        return { ...state, providerKey: { encryptedKey, keyHint, baseUrl } };
      }
      case 'MemberAdded':
      case 'MemberRoleChanged':
        if (state.status !== 'created') return state;
        return { ...state, members: { ...state.members, [event.data.userSubject]: event.data.role } };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'CreateOrganization': {
        const { initialCredits, ...created } = command.data;
        if (state.status === 'created') {
          // A retried creation of the same organization is a no-op; anything else is a conflict.
          if (state.slug === created.slug && state.name === created.name) return [];
          throw new ApiError('CONFLICT', `Organization ${state.organizationId} already exists`);
        }
        const grant: OrganizationEvent[] =
          initialCredits > 0 ? [{ type: 'CreditsGranted', data: { organizationId: created.organizationId, tokens: initialCredits, note: 'initial credits' } }] : [];
        return [{ type: 'OrganizationCreated', data: created }, ...grant];
      }

      case 'GrantCredits': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        if (!Number.isInteger(command.data.tokens) || command.data.tokens < 1) {
          throw new ApiError('VALIDATION_FAILED', 'credits are granted in whole tokens, at least 1');
        }
        return [{ type: 'CreditsGranted', data: { organizationId: state.organizationId, ...command.data } }];
      }

      case 'SetProviderKey': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        return [{ type: 'ProviderKeySet', data: { organizationId: state.organizationId, ...command.data } }];
      }

      case 'AddMember': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        const current = state.members[command.data.userSubject];
        const data = { organizationId: state.organizationId, ...command.data };
        if (current === command.data.role) return [];
        if (current === undefined) return [{ type: 'MemberAdded', data }];
        return [{ type: 'MemberRoleChanged', data: { ...data, previousRole: current } }];
      }
    }
  },
};
