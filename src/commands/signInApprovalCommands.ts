import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import { signInApproval } from '../domain/signIn/signInApproval.ts';
import { signInApprovalStream } from '../domain/signIn/signInApprovalEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { membershipsOf } from '../queries/memberQueries.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

const hashOf = (requestCode: string) => createHash('sha256').update(requestCode, 'utf8').digest('hex');

/**
 * Approves the pending sign-in whose page shows `requestCode`, for `subject` (a member: an assistant
 * acts as someone), until the sign-in page itself expires. The approver is the metadata's principal.
 */
export async function approveSignInRequest(
  deps: CommandDependencies & { db: Kysely<ReadModels> },
  input: { requestCode: string; subject: string; clientId: string; readOnly: boolean; expiresAt: string },
  metadata: CommandMetadata,
) {
  if ((await membershipsOf(deps.db, input.subject)).length === 0) {
    throw new ApiError('USER_NOT_MEMBER', `${input.subject} is not a member of any organization: an assistant acts as a member (seqflow org add-member)`);
  }
  const requestCodeHash = hashOf(input.requestCode);
  await handleCommand(deps, signInApprovalStream(requestCodeHash), signInApproval, { type: 'Approve', data: { requestCodeHash, subject: input.subject, clientId: input.clientId, readOnly: input.readOnly, expiresAt: input.expiresAt } }, metadata);
  return { requestCode: input.requestCode, subject: input.subject, approved: true };
}

/** Uses the approval of the sign-in whose page shows `requestCode`: its subject, or SIGN_IN_NOT_APPROVED. */
export async function completeApprovedSignIn(deps: CommandDependencies, requestCode: string, metadata: CommandMetadata): Promise<string> {
  const result = await handleCommand(deps, signInApprovalStream(hashOf(requestCode)), signInApproval, { type: 'Complete', data: { now: deps.now().toISOString() } }, metadata);
  return result.events[0]!.data.subject;
}
