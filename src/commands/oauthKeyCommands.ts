import type { Kysely } from 'kysely';
import { OAUTH_SIGNING_KEYS_STREAM } from '../domain/oauth/signingKeyEvents.ts';
import { signingKeys } from '../domain/oauth/signingKeys.ts';
import type { OAuthTables } from '../queries/oauthStoreTables.ts';
import { loadOrCreateOAuthKeys, newSigningKey, storeRotatedSigningKey, storedSigningKeys } from '../queries/oauthKeys.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/**
 * `seqflow oauth rotate-keys`: a new signing key for the embedded authorization server. The rotation
 * is recorded first (who, the new key's id and public half, the keys retired), then the key is
 * stored: every API process signs with it from its next request to the authorization server, and
 * verifies its tokens on first sight. Older keys keep verifying what they signed, so no one is
 * signed out. A crash between the two leaves a recorded key that never signed: rotate again.
 */
export async function rotateOAuthSigningKey(deps: CommandDependencies & { oauth: Kysely<OAuthTables>; masterKey: Buffer }, metadata: CommandMetadata) {
  // A service that never made keys gets its first ones, so that the rotation has a key to follow.
  await loadOrCreateOAuthKeys(deps.oauth, deps.masterKey);
  const stored = await storedSigningKeys(deps.oauth);
  const key = await newSigningKey();
  const { kty, crv, x, y } = key;
  const result = await handleCommand(deps, OAUTH_SIGNING_KEYS_STREAM, signingKeys, { type: 'Rotate', data: { kid: key.kid, publicKey: { kty, crv, x, y }, stored, now: deps.now() } }, metadata);
  const [rotated] = result.events;
  const retiredKids = rotated?.type === 'OAuthSigningKeyRotated' ? rotated.data.retiredKids : [];
  await storeRotatedSigningKey(deps.oauth, deps.masterKey, key, retiredKids);
  return { kid: key.kid, retiredKids, signingKeys: stored.length + 1 - retiredKids.length };
}
