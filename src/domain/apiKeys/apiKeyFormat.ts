import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * `{key_prefix}_{environment}_{key_id}_{secret}`. The key id names the `apikey-<id>` stream and is
 * safe to log; the secret is 64 hex characters (32 random bytes) and only its SHA-256 is stored.
 * A fast hash is right here: the secret is random and high-entropy, not a password.
 */
export const API_KEY_PREFIX = 'sf';
export const apiKeyEnvironments = ['live', 'test'] as const;
export type ApiKeyEnvironment = (typeof apiKeyEnvironments)[number];

const API_KEY_PATTERN = /^([a-z]{2,8})_(live|test)_([a-f0-9]{24})_([a-f0-9]{64})$/;

export interface ParsedApiKey {
  prefix: string;
  environment: ApiKeyEnvironment;
  keyId: string;
  secret: string;
}

export const formatApiKey = (key: ParsedApiKey) => `${key.prefix}_${key.environment}_${key.keyId}_${key.secret}`;

export function parseApiKey(raw: string): ParsedApiKey | null {
  const match = API_KEY_PATTERN.exec(raw);
  if (!match) return null;
  const [, prefix, environment, keyId, secret] = match as unknown as [string, string, ApiKeyEnvironment, string, string];
  return { prefix, environment, keyId, secret };
}

const KEY_ID_PATTERN = /^[a-f0-9]{24}$/;
const SHOWN_PREFIX_PATTERN = /^[a-z]{2,8}_(?:live|test)_([a-f0-9]{24})_?$/;

/** The key id in what names a key: the id itself, the shown prefix (`sf_live_<id>_`) or the whole key; null otherwise. */
export function apiKeyIdIn(text: string): string | null {
  if (KEY_ID_PATTERN.test(text)) return text;
  return parseApiKey(text)?.keyId ?? SHOWN_PREFIX_PATTERN.exec(text)?.[1] ?? null;
}

export const hashApiKeySecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time comparison of a presented secret with the stored hash. */
export function verifyApiKeySecret(secret: string, storedHashHex: string): boolean {
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  const stored = Buffer.from(storedHashHex, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
