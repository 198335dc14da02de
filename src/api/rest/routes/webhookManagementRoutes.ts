import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getWebhookSecret, rotateWebhookSecret } from '../../../commands/webhookSecretCommands.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';

const orgPath = z.object({ org_id: z.string() });

/** Organization-scoped webhook management (spec section 4): the masked secret, and its rotation. */
export function webhookManagementRoutes(runtime: Runtime, authorize: ReturnType<typeof createOrganizationAuth>) {
  return async (app: FastifyInstance) => {
    app.get('/organizations/:org_id/webhooks/secret', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'member');
      return getWebhookSecret(runtime.commands, org_id, runtime.masterKey, { principal: caller.principal });
    });

    app.post('/organizations/:org_id/webhooks/secret/rotate', async (request) => {
      const { org_id } = orgPath.parse(request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'admin');
      return rotateWebhookSecret(runtime.commands, org_id, runtime.masterKey, runtime.config.webhooks.secretGraceSeconds, { principal: caller.principal });
    });
  };
}
