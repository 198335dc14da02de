import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/decider.ts';
import { ApiError } from '../../src/domain/errors/apiError.ts';
import { organization } from '../../src/domain/organizations/organization.ts';
import type { OrganizationEvent } from '../../src/domain/organizations/organizationEvents.ts';
import { slugReservation } from '../../src/domain/slugs/slugReservation.ts';

const created: OrganizationEvent = { type: 'OrganizationCreated', data: { organizationId: 'o1', slug: 'acme', name: 'Acme' } };
const given = (...events: OrganizationEvent[]) => fold(organization, events);

describe('organization decider', () => {
  it('Given nothing, When CreateOrganization, Then OrganizationCreated', () => {
    expect(organization.decide({ type: 'CreateOrganization', data: { ...created.data, initialCredits: 0 } }, given())).toEqual([created]);
  });

  it('Given the organization, When the same creation is retried, Then nothing new happens', () => {
    expect(organization.decide({ type: 'CreateOrganization', data: { ...created.data, initialCredits: 0 } }, given(created))).toEqual([]);
  });

  it('Given the organization, When a different one is created under its id, Then CONFLICT', () => {
    expect(() => organization.decide({ type: 'CreateOrganization', data: { ...created.data, name: 'Other', initialCredits: 0 } }, given(created))).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
  });

  it('Given a member, When added again with another role, Then MemberRoleChanged with the previous role', () => {
    const state = given(created, { type: 'MemberAdded', data: { organizationId: 'o1', userSubject: 'u1', role: 'member' } });
    expect(organization.decide({ type: 'AddMember', data: { userSubject: 'u1', role: 'admin' } }, state)).toEqual([
      { type: 'MemberRoleChanged', data: { organizationId: 'o1', userSubject: 'u1', role: 'admin', previousRole: 'member' } },
    ]);
    expect(organization.decide({ type: 'AddMember', data: { userSubject: 'u1', role: 'member' } }, state)).toEqual([]);
  });

  it('Given nothing, When created with initial credits, Then OrganizationCreated and CreditsGranted', () => {
    expect(organization.decide({ type: 'CreateOrganization', data: { ...created.data, initialCredits: 500 } }, given())).toEqual([
      created,
      { type: 'CreditsGranted', data: { organizationId: 'o1', tokens: 500, note: 'initial credits' } },
    ]);
  });

  it('grants whole positive numbers of tokens only', () => {
    expect(organization.decide({ type: 'GrantCredits', data: { tokens: 100, note: null } }, given(created))).toEqual([
      { type: 'CreditsGranted', data: { organizationId: 'o1', tokens: 100, note: null } },
    ]);
    for (const tokens of [0, -5, 1.5]) {
      expect(() => organization.decide({ type: 'GrantCredits', data: { tokens, note: null } }, given(created))).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    }
  });

  it('Given nothing, When AddMember, Then ORGANIZATION_NOT_FOUND', () => {
    expect(() => organization.decide({ type: 'AddMember', data: { userSubject: 'u1', role: 'owner' } }, given())).toThrow(ApiError);
  });
});

describe('slug reservation decider', () => {
  const reserve = (ownerId: string) => ({ type: 'ReserveSlug' as const, data: { scope: 'organization' as const, parentId: null, slug: 'acme', ownerId } });

  it('reserves a free slug, accepts a retry by the same owner, refuses another owner with SLUG_TAKEN', () => {
    const events = slugReservation.decide(reserve('a'), slugReservation.initialState());
    expect(events).toEqual([{ type: 'SlugReserved', data: reserve('a').data }]);
    const state = fold(slugReservation, events);
    expect(slugReservation.decide(reserve('a'), state)).toEqual([]);
    expect(() => slugReservation.decide(reserve('b'), state)).toThrow(expect.objectContaining({ code: 'SLUG_TAKEN' }));
  });
});
