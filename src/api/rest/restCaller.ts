import type { FastifyRequest } from 'fastify';
import type { RunCaller } from '../../runs/runCaller.ts';
import { requestOrigin } from '../http/requestTracing.ts';

/** The run caller an API-key request is: its key's project, the key it is charged to, its id and trace. */
export function callerOf(request: FastifyRequest): RunCaller {
  const apiKey = request.apiKey!;
  return { projectId: apiKey.projectId, apiKeyId: apiKey.keyId, principal: { kind: 'apiKey', id: apiKey.keyId }, ...requestOrigin(request) };
}
