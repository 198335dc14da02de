import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getWebhookSecret, rotateWebhookSecret } from '../../../commands/webhookSecretCommands.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { listDeliveries } from '../../../queries/deliveryQueries.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';
import { requestOrigin } from '../requestTracing.ts';

const orgPath = z.object({ org_id: z.string() });
const listingQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  // An ISO 8601 timestamp (spec), or the opaque nextCursor of the previous page.
  before: z.string().max(500).optional(),
});

/** Organization-scoped webhook management (spec section 4): the masked secret, its rotation, the deliveries. */
export function webhookManagementRoutes(runtime: Runtime, authorize: ReturnType<typeof createOrganizationAuth>) {
  return async (app: FastifyInstance) => {
    app.get('/organizations/:org_id/webhooks/secret', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'member');
      return getWebhookSecret(runtime.commands, org_id, runtime.masterKey, { principal: caller.principal, ...requestOrigin(request) });
    });

    app.get('/organizations/:org_id/webhooks/deliveries', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      await authorize(request.headers.authorization, org_id, 'member');
      const parsed = listingQuery.safeParse(request.query);
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid query: ${describeIssues(parsed.error.issues).join('; ')}`);
      return listDeliveries(runtime.db, org_id, parsed.data);
    });

    app.post('/organizations/:org_id/webhooks/secret/rotate', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'admin');
      return rotateWebhookSecret(runtime.commands, org_id, runtime.masterKey, runtime.config.webhooks.secretGraceSeconds, { principal: caller.principal, ...requestOrigin(request) });
    });
  };
}
