import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { MemberRole } from './memberRole.ts';
import type { OrganizationEvent } from './organizationEvents.ts';

export type OrganizationState =
  | { status: 'none' }
  | { status: 'created'; organizationId: string; slug: string; name: string; members: Record<string, MemberRole> };

export type OrganizationCommand =
  | { type: 'CreateOrganization'; data: { organizationId: string; slug: string; name: string } }
  | { type: 'AddMember'; data: { userSubject: string; role: MemberRole } };

export const organization: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { status: 'created', ...event.data, members: {} };
      case 'MemberAdded':
      case 'MemberRoleChanged':
        if (state.status !== 'created') return state;
        return { ...state, members: { ...state.members, [event.data.userSubject]: event.data.role } };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'CreateOrganization':
        if (state.status === 'created') {
          // A retried creation of the same organization is a no-op; anything else is a conflict.
          if (state.slug === command.data.slug && state.name === command.data.name) return [];
          throw new ApiError('CONFLICT', `Organization ${state.organizationId} already exists`);
        }
        return [{ type: 'OrganizationCreated', data: command.data }];

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
