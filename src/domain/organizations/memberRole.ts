import { z } from 'zod';

export const memberRoles = ['owner', 'admin', 'member'] as const;
export const memberRoleSchema = z.enum(memberRoles);
export type MemberRole = z.infer<typeof memberRoleSchema>;

/** Rotating secrets and other administrative acts need admin or owner. */
export const isAdminRole = (role: MemberRole) => role === 'owner' || role === 'admin';
