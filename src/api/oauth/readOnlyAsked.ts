import { MCP_READ_SCOPE, MCP_SCOPE, type EmbeddedResources } from './embeddedAuthorizationServer.ts';

/** An authorization request's parameters, as oidc-provider keeps them with the interaction. */
export type SignInParams = { scope?: unknown; resource?: unknown };

/** The resources (RFC 8707) a sign-in asks for. */
export const askedResources = (params: SignInParams) => [params.resource].flat().filter((value): value is string => typeof value === 'string');

/** Whether a sign-in asks for the reading tools only: the read-only endpoint, or the `mcp:read` scope without `mcp`. */
export function readOnlyAsked(params: SignInParams, resources: Pick<EmbeddedResources, 'mcpReadOnly'>): boolean {
  const scopes = new Set(String(params.scope ?? '').split(' '));
  const asked = askedResources(params);
  const onlyReadOnlyResources = asked.length > 0 && asked.every((resource) => resource.replace(/\/+$/, '') === resources.mcpReadOnly);
  return onlyReadOnlyResources || (scopes.has(MCP_READ_SCOPE) && !scopes.has(MCP_SCOPE));
}
