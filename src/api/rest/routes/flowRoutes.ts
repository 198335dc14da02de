import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findFlowForCaller } from '../../../queries/flowQueries.ts';
import type { Runtime } from '../../../runtime/runtime.ts';
import { type ApiKeyAuthenticator } from '../../auth/apiKeyAuthenticator.ts';

const flowPath = z.object({ org: z.string(), project: z.string(), flow: z.string() });

/** `/seq/{org}/{project}/{flow}`: API-key authenticated, scoped to the key's project. */
export function flowRoutes(runtime: Runtime, authenticate: ApiKeyAuthenticator) {
  return async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request) => {
      request.apiKey = await authenticate(request.headers.authorization);
    });

    app.get('/seq/:org/:project/:flow', async (request) => {
      const slugs = flowPath.parse(request.params);
      return findFlowForCaller(runtime.db, slugs, request.apiKey!.projectId);
    });
  };
}
