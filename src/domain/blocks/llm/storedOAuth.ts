import { z } from 'zod';

/**
 * What an organization's secret holds for an MCP server that wants OAuth (an `mcp` server tool's
 * `oauth.tokens`): the client the service is registered as there, and its current tokens, in the
 * OAuth field names (RFC 6749; the MCP SDK's own shapes, other fields kept as they are). Stored
 * with `seqflow secret set` as one line of JSON; a refresh stores the new tokens as the secret's
 * next version.
 */
export const storedOAuthSchema = z.object({
  client: z.looseObject({ client_id: z.string().min(1), client_secret: z.string().min(1).optional() }),
  tokens: z.looseObject({ access_token: z.string().min(1), token_type: z.string().min(1), refresh_token: z.string().min(1).optional(), expires_in: z.number().optional() }),
});
export type StoredOAuth = z.infer<typeof storedOAuthSchema>;

/** The stored state as the secret's value: one line of JSON (a secret holds no line break). */
export const storedOAuthValue = (state: StoredOAuth): string => JSON.stringify(state);

/** The secret's value read as stored OAuth state, or why it is not one (never quoting it). */
export function parseStoredOAuth(value: string): StoredOAuth | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problem: 'is not JSON' };
  }
  const checked = storedOAuthSchema.safeParse(parsed);
  return checked.success ? checked.data : { problem: `is not {client: {client_id, client_secret?}, tokens: {access_token, token_type, refresh_token?}} (${checked.error.issues.map((i) => i.path.join('.') || 'the value').join(', ')})` };
}

/** The parts of the state that are credentials, by name, for redaction: none of them is ever recorded. */
export const oauthCredentials = (state: StoredOAuth): Record<string, string> => ({
  'oauth.access_token': state.tokens.access_token,
  ...(state.tokens.refresh_token ? { 'oauth.refresh_token': state.tokens.refresh_token } : {}),
  ...(state.client.client_secret ? { 'oauth.client_secret': state.client.client_secret } : {}),
});
