import sodium from 'sodium-native';
import type { DataKey } from './runDataCipher.ts';
import type { RandomPool } from './randomPool.ts';

/**
 * A run's data key as `run_data_keys` stores it: sealed under the master key with
 * XChaCha20-Poly1305 (libsodium; one call per new run, some 3 µs against 10 for Node's AES-GCM), a
 * random 192-bit nonce, the run's id as associated data (a key row copied to another run does not
 * open). Text: `k2:<base64 of nonce, ciphertext and tag>`.
 */
const PREFIX = 'k2:';
const NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
const TAG_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;

export function wrapDataKey(key: DataKey, executionId: string, masterKey: Buffer, random: RandomPool): string {
  const out = Buffer.allocUnsafe(NONCE_BYTES + key.length + TAG_BYTES);
  const nonce = random(NONCE_BYTES);
  nonce.copy(out);
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(out.subarray(NONCE_BYTES), key, Buffer.from(executionId, 'utf8'), null, nonce, masterKey);
  return PREFIX + out.toString('base64');
}

/** The master key cannot open a run's stored key: the key was sealed under another master key, or changed. */
export class DataKeyUnwrapError extends Error {
  constructor(executionId: string, cause: unknown) {
    super(`the master key cannot open the data key of run ${executionId}: it was sealed under another master key (check SEQFLOW_MASTER_KEY), or changed`, { cause });
    this.name = 'DataKeyUnwrapError';
  }
}

export function unwrapDataKey(text: string, executionId: string, masterKey: Buffer): DataKey {
  try {
    if (!text.startsWith(PREFIX)) throw new Error('not a wrapped data key');
    const bytes = Buffer.from(text.slice(PREFIX.length), 'base64');
    if (bytes.length !== NONCE_BYTES + 32 + TAG_BYTES) throw new Error('a wrapped data key of the wrong length');
    const key = Buffer.alloc(32);
    sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(key, null, bytes.subarray(NONCE_BYTES), Buffer.from(executionId, 'utf8'), bytes.subarray(0, NONCE_BYTES), masterKey);
    return key;
  } catch (error) {
    throw new DataKeyUnwrapError(executionId, error);
  }
}
