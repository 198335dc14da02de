import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

import type { Runtime } from '../../../runtime/runtime.ts';

const flowPath = z.object({ org: z.string(), project: z.string(), flow: z.string() });

/** `GET /seq/{org}/{project}/{flow}`: the flow and its production version, for a key of its project. */
export function flowRoutes(runtime: Runtime) {
  return async (app: FastifyInstance) => {
    app.get('/seq/:org/:project/:flow', async (request) => {
      const slugs = flowPath.parse(request.params);
      return runtime.flows.findFlowForCaller(slugs, request.apiKey!.projectId);
    });
  };
}
