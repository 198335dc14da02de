import { parsePath } from '../queryParameters.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getWebhookSecret, rotateWebhookSecret } from '../../../commands/webhookSecretCommands.ts';
import { ApiError } from '../../../domain/errors/apiError.ts';
import { describeIssues } from '../../../domain/validation/issuePath.ts';
import { listDeliveries } from '../../../queries/deliveryQueries.ts';
import type { Kysely } from 'kysely';
import type { CommandDependencies } from '../../../commands/commandHandler.ts';
import type { ReadModels } from '../../../projections/readModelSchema.ts';
import type { createOrganizationAuth } from '../../auth/organizationAuth.ts';
import { requestOrigin } from '../../http/requestTracing.ts';
import { documented } from '../openapi/routeDocs.ts';
import { deliveryPageSchema, rotatedSecretSchema, webhookSecretSchema } from '../openapi/responseSchemas.ts';
import { LISTING, ORGANIZATION_LOOKUP } from '../openapi/operationErrors.ts';

const orgPath = z.object({ org_id: z.string().meta({ description: 'Organization id' }) });
const listingQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  // An ISO 8601 timestamp (spec), or the opaque nextCursor of the previous page.
  before: z.string().max(500).optional(),
});

/** What managing an organization's webhooks uses. */
export interface WebhookManagement {
  commands: CommandDependencies;
  db: Kysely<ReadModels>;
  /** Encrypts the signing secrets at rest. */
  masterKey: Buffer;
  secretGraceSeconds: number;
}

/** Organization-scoped webhook management (spec section 4): the masked secret, its rotation, the deliveries. */
export function webhookManagementRoutes(deps: WebhookManagement, authorize: ReturnType<typeof createOrganizationAuth>) {
  return async (app: FastifyInstance) => {
    const tags = ['Webhooks'];
    const secret = documented({ operationId: 'getWebhookSecret', summary: "The organization's webhook signing secret, masked (issued on first use)", tags, params: orgPath, response: { 200: webhookSecretSchema }, errors: ORGANIZATION_LOOKUP }, ['apiKey', 'operatorToken']);
    app.get('/organizations/:org_id/webhooks/secret', { schema: secret }, async (request) => {
      const { org_id } = parsePath(orgPath, request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'member');
      return getWebhookSecret(deps.commands, org_id, deps.masterKey, { principal: caller.principal, ...requestOrigin(request) });
    });

    const deliveries = documented({ operationId: 'listWebhookDeliveries', summary: "The organization's webhook deliveries, newest first", tags, params: orgPath, querystring: listingQuery, response: { 200: deliveryPageSchema }, errors: [...ORGANIZATION_LOOKUP, ...LISTING] }, ['apiKey', 'operatorToken']);
    app.get('/organizations/:org_id/webhooks/deliveries', { schema: deliveries }, async (request) => {
      const { org_id } = parsePath(orgPath, request.params);
      await authorize(request.headers.authorization, org_id, 'member');
      const parsed = listingQuery.safeParse(request.query);
      if (!parsed.success) throw new ApiError('VALIDATION_FAILED', `Invalid query: ${describeIssues(parsed.error.issues).join('; ')}`);
      return listDeliveries(deps.db, org_id, parsed.data);
    });

    const rotate = documented({ operationId: 'rotateWebhookSecret', summary: 'Rotate the signing secret: the new one is shown once; the previous one also signs (v2) during the grace window', tags, params: orgPath, response: { 200: rotatedSecretSchema }, errors: ORGANIZATION_LOOKUP }, ['operatorToken']);
    app.post('/organizations/:org_id/webhooks/secret/rotate', { schema: rotate }, async (request) => {
      const { org_id } = parsePath(orgPath, request.params);
      const caller = await authorize(request.headers.authorization, org_id, 'admin');
      return rotateWebhookSecret(deps.commands, org_id, deps.masterKey, deps.secretGraceSeconds, { principal: caller.principal, ...requestOrigin(request) });
    });
  };
}
