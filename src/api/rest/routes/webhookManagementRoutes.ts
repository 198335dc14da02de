import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getWebhookSecret, rotateWebhookSecret } from '../../../commands/webhookSecretCommands.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';

const orgPath = z.object({ org_id: z.string() });
const listingQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.iso.datetime({ offset: true }).optional(),
});

/** Organization-scoped webhook management (spec section 4): the masked secret, its rotation, the deliveries. */
export function webhookManagementRoutes(runtime: Runtime, authorize: ReturnType<typeof createOrganizationAuth>) {
  return async (app: FastifyInstance) => {
    app.get('/organizations/:org_id/webhooks/secret', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'member');
      return getWebhookSecret(runtime.commands, org_id, runtime.masterKey, { principal: caller.principal });
    });

    app.get('/organizations/:org_id/webhooks/deliveries', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      await authorize(request.headers.authorization, org_id, 'member');
      const parsed = listingQuery.safeParse(request.query);
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid query: ${describeIssues(parsed.error.issues).join('; ')}`);
      const { limit, before } = parsed.data;
      let query = runtime.db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', org_id);
      if (before) query = query.where('created_at', '<', new Date(before));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      const iso = (d: Date | null) => (d ? d.toISOString() : null);
      return {
        items: rows.map((r) => ({
          id: r.id,
          executionId: r.execution_id,
          event: r.event,
          status: r.status,
          attempts: r.attempts,
          responseStatus: r.response_status,
          errorExcerpt: r.error_excerpt,
          createdAt: iso(r.created_at),
          nextAttemptAt: iso(r.next_attempt_at),
        })),
        // Pass back as `before` for the next (older) page; null on the last page.
        nextCursor: rows.length === limit ? iso(rows.at(-1)!.created_at) : null,
      };
    });

    app.post('/organizations/:org_id/webhooks/secret/rotate', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'admin');
      return rotateWebhookSecret(runtime.commands, org_id, runtime.masterKey, runtime.config.webhooks.secretGraceSeconds, { principal: caller.principal });
    });
  };
}
