import type { Decider } from '../decider.ts';
import { ACCESS_TOKEN_TTL_SECONDS, KEY_RETIREMENT_MARGIN_SECONDS } from './accessTokenLifetime.ts';
import type { OAuthSigningKeyEvent } from './signingKeyEvents.ts';

export type SigningKeysState = { current: string | null; rotations: number };

export type SigningKeysCommand = {
  type: 'Rotate';
  data: {
    /** The new key, made by the caller: its id and public half. */
    kid: string;
    publicKey: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
    /** The signing keys stored now, newest first (the first signs until this rotation). */
    stored: { kid: string; createdAt: Date }[];
    now: Date;
  };
};

/**
 * Rotating the signing key: the new key signs from now on; every older key stays while a token it
 * signed may still be unexpired, and is retired after. A key stopped signing when the key after it
 * was made, so it is retired once that is longer ago than an access token lives (plus clock skew).
 * The key signing until now is never retired here: its tokens are at most an hour old.
 */
export const signingKeys: Decider<SigningKeysCommand, OAuthSigningKeyEvent, SigningKeysState> = {
  initialState: () => ({ current: null, rotations: 0 }),
  evolve: (state, event) => ({ current: event.data.kid, rotations: state.rotations + 1 }),
  decide: (command) => {
    const { kid, publicKey, stored, now } = command.data;
    const keepFor = (ACCESS_TOKEN_TTL_SECONDS + KEY_RETIREMENT_MARGIN_SECONDS) * 1000;
    const retiredKids = stored.filter((_key, i) => i > 0 && now.getTime() - stored[i - 1]!.createdAt.getTime() >= keepFor).map((key) => key.kid);
    return [{ type: 'OAuthSigningKeyRotated', data: { kid, publicKey, retiredKids } }];
  },
};
