import { parsePath } from '../queryParameters.ts';
import type { FastifyInstance } from 'fastify';
import type { FlowCatalog } from '../../../caches/flowCatalog.ts';
import { documented, flowParams } from '../openapi/routeDocs.ts';
import { flowSchema } from '../openapi/responseSchemas.ts';
import { FLOW_LOOKUP } from '../openapi/operationErrors.ts';


/** `GET /seq/{org}/{project}/{flow}`: the flow and its production version, for a key of its project. */
export function flowRoutes(flows: Pick<FlowCatalog, 'findFlowForCaller'>) {
  return async (app: FastifyInstance) => {
    const schema = documented({ operationId: 'getFlow', summary: 'A flow and its production version', tags: ['Flows'], params: flowParams, response: { 200: flowSchema }, errors: FLOW_LOOKUP }, ['apiKey']);
    app.get('/seq/:org/:project/:flow', { schema }, async (request) => {
      const slugs = parsePath(flowParams, request.params);
      return flows.findFlowForCaller(slugs, request.apiKey!.projectId);
    });
  };
}
