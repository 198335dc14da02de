import { errors } from 'oidc-provider';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * What a client's redirect URIs make it (RFC 8252). A client that returns to its own machine
 * (`http` on a loopback address, any port at sign-in) or to a private-use scheme
 * (`cursor://…`, `claude://…`, `vscode://…`) is a native app, whatever `application_type` it
 * sent: assistants register without one. Otherwise it is a web client, whose redirects must be
 * `https`. The provider then checks each URI against the type (no fragments, no `javascript:`…).
 */
export function classifyRedirectUris(metadata: Record<string, unknown>): void {
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  const parsed = uris.map((uri) => (typeof uri === 'string' ? URL.parse(uri) : null));
  // `http://user:pass@127.0.0.1/` shows a host that is not where the browser goes: refused outright.
  if (parsed.some((url) => url !== null && (url.username !== '' || url.password !== ''))) throw new errors.InvalidClientMetadata('redirect_uris must not carry a user name or password');
  const native = parsed.some((url) => url !== null && (isLoopbackHttp(url) || (url.protocol !== 'http:' && url.protocol !== 'https:')));
  if (native) {
    metadata.application_type = 'native';
    // The provider compares redirect URIs as strings (the port aside): VS Code registers
    // `http://127.0.0.1:33418` and signs in with `http://127.0.0.1:33418/`. An empty path is `/`
    // (RFC 3986 §6.2.3), so loopback URIs are kept in that form.
    metadata.redirect_uris = uris.map((uri, i) => (parsed[i] && isLoopbackHttp(parsed[i]) && /^http:\/\/[^/?#]+$/.test(uri as string) ? `${uri as string}/` : uri));
    return;
  }
  for (const url of parsed) {
    if (url?.protocol === 'http:') throw new errors.InvalidClientMetadata('redirect_uris may use http only for loopback addresses (127.0.0.1, [::1], localhost): use https');
  }
}

const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
