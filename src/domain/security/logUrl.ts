/**
 * A request URL as the logs may show it: whatever in it may be a credential is replaced. Clients put
 * tokens in query strings (`?access_token=`, `?api_key=`, a one-time link's `?token=`), and a
 * query's input can carry a pasted API key or webhook secret (the console's tRPC calls put their
 * input in the URL). So the value of every query parameter whose name says credential is replaced,
 * and so is every API key's secret and every `whsec_` secret wherever it appears (an API key keeps
 * its prefix and id, which name it without giving it away).
 */
const CREDENTIAL_NAME = /token|key|secret|password|passwd|signature|^sig$|^code$|auth|jwt|session|credential/i;
// No leading word boundary: in a percent-encoded query the key follows `%22` or `%3D` directly.
const API_KEY_SECRET = /([a-z]{2,8}_(?:live|test)_[a-f0-9]{24}_)[a-f0-9]{64}/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]{16,}/g;
const REDACTED = '[redacted]';

export function logUrl(url: string): string {
  const withoutSecrets = url.replace(API_KEY_SECRET, `$1${REDACTED}`).replace(WEBHOOK_SECRET, `whsec_${REDACTED}`);
  const queryAt = withoutSecrets.indexOf('?');
  if (queryAt === -1) return withoutSecrets;
  const hashAt = withoutSecrets.indexOf('#', queryAt);
  const query = withoutSecrets.slice(queryAt + 1, hashAt === -1 ? undefined : hashAt);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replaceAll('+', ' '));
      } catch {
        name = pair.slice(0, eq);
      }
      return CREDENTIAL_NAME.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  // A fragment never reaches a server; one that does is dropped rather than judged.
  return `${withoutSecrets.slice(0, queryAt)}?${redacted}`;
}
