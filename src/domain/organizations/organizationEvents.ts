import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { memberRoleSchema } from './memberRole.ts';

export const OrganizationCreated = defineEvent(
  'OrganizationCreated',
  1,
  z.object({ organizationId: z.string(), slug: z.string(), name: z.string() }),
);
export const MemberAdded = defineEvent(
  'MemberAdded',
  1,
  z.object({ organizationId: z.string(), userSubject: z.string(), role: memberRoleSchema }),
);
export const MemberRoleChanged = defineEvent(
  'MemberRoleChanged',
  1,
  z.object({ organizationId: z.string(), userSubject: z.string(), role: memberRoleSchema, previousRole: memberRoleSchema }),
);

export type OrganizationEvent = EventOf<typeof OrganizationCreated> | EventOf<typeof MemberAdded> | EventOf<typeof MemberRoleChanged>;

export const organizationStream = (organizationId: string) => `org-${organizationId}`;
