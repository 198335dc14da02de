import { z } from 'zod';
import { memberRoles } from '../../organizations/memberRole.ts';

/** How long an approval waits unless its block says: a day. */
export const APPROVAL_TIMEOUT_DEFAULT_MS = 86_400_000;
/** At least a second (tests), at most 30 days: a run does not wait longer for a person. */
export const APPROVAL_TIMEOUT_MIN_MS = 1_000;
export const APPROVAL_TIMEOUT_MAX_MS = 30 * 86_400_000;

/** What happens when nobody decides in time: the step reads rejected, or approved, or the run fails (APPROVAL_TIMED_OUT). */
export const timeoutPolicies = ['reject', 'approve', 'fail'] as const;
export type TimeoutPolicy = (typeof timeoutPolicies)[number];

/** Who may decide: members holding one of the roles, or the members named by their subject (either suffices). */
export const approversSchema = z.strictObject({
  roles: z.array(z.enum(memberRoles)).max(memberRoles.length).optional(),
  members: z.array(z.string().min(1).max(255)).max(50).optional(),
});
export type Approvers = z.infer<typeof approversSchema>;

/**
 * An approval block's `processor_config.approval`: the text the approver reads (a template over the
 * run's context, like a prompt), who may decide, and how long the run waits before its timeout
 * policy decides instead.
 */
export const approvalConfigShape = {
  approval: z
    .strictObject({
      text: z.string().min(1).max(4_000),
      approvers: approversSchema,
      timeout_ms: z.number().int().min(APPROVAL_TIMEOUT_MIN_MS).max(APPROVAL_TIMEOUT_MAX_MS).optional(),
      on_timeout: z.enum(timeoutPolicies).optional(),
    })
    .optional(),
};

export type ApprovalConfig = NonNullable<z.infer<(typeof approvalConfigShape)['approval']>>;
