import type { SignInRequester } from './signInPage.ts';
import { MCP_READ_SCOPE, MCP_SCOPE, type EmbeddedResources } from './embeddedAuthorizationServer.ts';

/** An authorization request's parameters, as oidc-provider keeps them with the interaction. */
export type SignInParams = { client_id?: unknown; redirect_uri?: unknown; scope?: unknown; resource?: unknown };

/** The resources (RFC 8707) a sign-in asks for. */
export const askedResources = (params: SignInParams) => [params.resource].flat().filter((value): value is string => typeof value === 'string');

/** Whether a sign-in asks for the reading tools only: the read-only endpoint, or the `mcp:read` scope without `mcp`. */
export function readOnlyAsked(params: SignInParams, resources: Pick<EmbeddedResources, 'mcpReadOnly'>): boolean {
  const scopes = new Set(String(params.scope ?? '').split(' '));
  const asked = askedResources(params);
  const onlyReadOnlyResources = asked.length > 0 && asked.every((resource) => resource.replace(/\/+$/, '') === resources.mcpReadOnly);
  return onlyReadOnlyResources || (scopes.has(MCP_READ_SCOPE) && !scopes.has(MCP_SCOPE));
}

/** A redirect URI as the page names it; null when it is not a URL. */
export function returnsToOf(redirectUri: string): SignInRequester['returnsTo'] {
  const url = URL.parse(redirectUri);
  if (!url) return null;
  const loopback = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  return { scheme: url.protocol.replace(/:$/, ''), host: url.host || url.pathname.split('/')[0] || '', loopback };
}

/**
 * Who asks, from a sign-in's parameters, as the sign-in page and the console's "Connect an
 * assistant" both show it: its name for itself, where it returns, where it was registered (a
 * metadata document's host), and whether it asks to read only.
 */
export function requesterOf(params: SignInParams, clientName: string | null, resources: Pick<EmbeddedResources, 'mcpReadOnly'>): SignInRequester {
  const clientId = String(params.client_id ?? '');
  const document = /^https:\/\//.test(clientId) ? URL.parse(clientId) : null;
  return { clientName: clientName ?? clientId, returnsTo: returnsToOf(String(params.redirect_uri ?? '')), documentHost: document?.host ?? null, readOnly: readOnlyAsked(params, resources) };
}
