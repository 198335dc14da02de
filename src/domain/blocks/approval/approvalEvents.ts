import { z } from 'zod';
import { defineEvent, type EventOf } from '../../events/eventDefinition.ts';
import { blockRef } from '../../execution/blockRef.ts';
import { memberRoleSchema } from '../../organizations/memberRole.ts';
import { operational, personal } from '../../privacy/dataClass.ts';
import { aSubject, anId } from '../../privacy/operationalText.ts';
import { timeoutPolicies } from './approvalConfig.ts';

export const approvalDecisions = ['approved', 'rejected'] as const;
export type ApprovalDecision = (typeof approvalDecisions)[number];

/**
 * An approval block's run waits for a person (issue 61): the text they read (rendered from the
 * run's data: sealed), who may decide, and how long it waits. The flow's ids are here so that the
 * read models that list waiting approvals (and the jobs that continue the run) need no other event.
 * The time it waits from is this event's own record in the log (the database's clock).
 */
export const ApprovalRequested = defineEvent(
  'ApprovalRequested',
  1,
  z.object({
    ...blockRef,
    organizationId: anId(),
    projectId: anId(),
    flowId: anId(),
    text: personal(z.string(), ''),
    approvers: z.object({
      roles: z.array(memberRoleSchema),
      members: z.array(operational(z.string(), "an approver the flow's configuration names: a member's subject, kept as the audit trail's who")),
    }),
    timeoutMs: z.number().int().min(0),
    onTimeout: z.enum(timeoutPolicies),
  }),
);

/**
 * The approval was decided, once: by a member (who, in which role, and their comment, sealed: it may
 * quote the run's data), or by its timeout (the policy's decision; `fail` ends the run in the same
 * append). `decision` null: timed out under `fail`.
 */
export const ApprovalDecided = defineEvent(
  'ApprovalDecided',
  1,
  z.object({
    ...blockRef,
    decision: z.enum(approvalDecisions).nullable(),
    comment: personal(z.string().nullable(), null),
    decidedBy: z.discriminatedUnion('kind', [z.object({ kind: z.literal('member'), subject: aSubject(), role: memberRoleSchema }), z.object({ kind: z.literal('timeout') })]),
    decidedAt: operational(z.iso.datetime(), 'a time the service recorded'),
  }),
);

export type ApprovalEvent = EventOf<typeof ApprovalRequested> | EventOf<typeof ApprovalDecided>;

type Decided = EventOf<typeof ApprovalDecided>['data'];

/** Who decided, as traces, read models and the step's output name them: a member's subject, or `timeout`. */
export const deciderName = (decidedBy: Decided['decidedBy']): string => (decidedBy.kind === 'member' ? decidedBy.subject : 'timeout');

/** An approval block's output: its decision, as later blocks read it by name. */
export const approvalOutput = (decided: Pick<Decided, 'decision' | 'comment' | 'decidedBy' | 'decidedAt'>) => ({ decision: decided.decision, comment: decided.comment, decided_by: deciderName(decided.decidedBy), decided_at: decided.decidedAt });
