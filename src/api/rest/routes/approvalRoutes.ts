import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandDependencies } from '../../../commands/commandHandler.ts';
import { parseApiKey } from '../../../domain/apiKeys/apiKeyFormat.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { decideApproval } from '../../../execution/decideApproval.ts';
import type { ReadModels } from '../../../projections/readModelSchema.ts';
import { type FlowSlugs, flowNotFound, flowOwners } from '../../../queries/flowQueries.ts';
import type { ApiKeyAuthenticator } from '../../auth/apiKeyAuthenticator.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';
import { requestOrigin } from '../../http/requestTracing.ts';
import { APPROVAL_DECIDED } from '../openapi/operationErrors.ts';
import { approvalDecidedSchema } from '../openapi/responseSchemas.ts';
import { documented, flowParams } from '../openapi/routeDocs.ts';
import { parsePath } from '../queryParameters.ts';

const approvalPath = flowParams.extend({ executionId: z.string().min(1).max(200), stepId: z.string().min(1).max(64) });
const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  comment: z.string().max(2_000).optional().meta({ description: 'Why: recorded with the decision (sealed with the run\'s data)' }),
});

/**
 * `POST /seq/{org}/{project}/{flow}/runs/{executionId}/approvals/{stepId}` (an addition to the
 * spec): a decision of the approval a run waits at. Who decides is who calls: a member signed in
 * (an operator token: their subject and role in the organization), or an API key of the flow's
 * project, which acts as a member (subject `api-key:<id>`, role `member`), as it does everywhere.
 */
export function approvalRoutes(deps: { db: Kysely<ReadModels>; commands: CommandDependencies; apiKeys: ApiKeyAuthenticator; authorize: ReturnType<typeof createOrganizationAuth> }) {
  async function deciderOf(authorization: string | undefined, slugs: FlowSlugs) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token && parseApiKey(token)) {
      const key = await deps.apiKeys(authorization);
      const flow = await flowOwners(deps.db, slugs);
      if (!flow || flow.projectId !== key.projectId) throw flowNotFound(slugs);
      return { flow, principal: { kind: 'apiKey' as const, id: key.keyId }, decider: { subject: `api-key:${key.keyId}`, role: 'member' as const } };
    }
    const flow = await flowOwners(deps.db, slugs);
    // The token is checked before a missing flow is told: a stranger learns nothing of the flows.
    const caller = await deps.authorize(authorization, flow?.organizationId ?? 'none', 'member').catch((error: unknown) => {
      if (!flow && error instanceof ApiError && error.code === 'ORGANIZATION_NOT_FOUND') throw flowNotFound(slugs);
      throw error;
    });
    return { flow: flow!, principal: caller.principal, decider: { subject: caller.principal.id, role: caller.role } };
  }

  return async (app: FastifyInstance) => {
    const schema = documented(
      {
        operationId: 'decideApproval',
        summary: 'Approve or reject the approval a run waits at',
        description:
          "Once per approval: a second decision is 409 APPROVAL_ALREADY_DECIDED, one for a run not waiting there 409 APPROVAL_NOT_WAITING, one by a caller the block does not name (by role or subject) 403. The run then goes on as a job: poll GET .../jobs/{executionId}. An addition to the spec.",
        tags: ['Runs'],
        params: approvalPath,
        body: decisionBody,
        response: { 200: approvalDecidedSchema },
        errors: APPROVAL_DECIDED,
      },
      ['apiKey', 'operatorToken'],
    );
    app.post('/seq/:org/:project/:flow/runs/:executionId/approvals/:stepId', { schema }, async (request) => {
      const { org, project, flow: flowSlug, executionId, stepId } = parsePath(approvalPath, request.params);
      const parsed = decisionBody.safeParse(request.body);
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid body: ${describeIssues(parsed.error.issues).join('; ')}`);
      const { flow, principal, decider } = await deciderOf(request.headers.authorization, { org, project, flow: flowSlug });
      const decided = await decideApproval(deps.commands, { executionId, stepId, flowId: flow.flowId, decision: parsed.data.decision, comment: parsed.data.comment ?? null, decider }, { principal, ...requestOrigin(request) });
      const { position: _position, ...answer } = decided;
      return answer;
    });
  };
}
