import { type DataKey, DATA_KEY_BYTES } from './runDataCipher.ts';
import type { RandomPool } from './randomPool.ts';
import { NONCE_BYTES, openBox, sealBox } from './xchachaBox.ts';

/**
 * A run's data key as `run_data_keys` stores it: sealed under the master key with
 * XChaCha20-Poly1305 (xchachaBox.ts; one call per new run, some 3 µs against 10 for Node's AES-GCM),
 * a random 192-bit nonce, the run's id as associated data (a key row copied to another run does not
 * open). Text: `k2:<base64 of nonce, ciphertext and tag>`.
 */
const PREFIX = 'k2:';

export function wrapDataKey(key: DataKey, executionId: string, masterKey: Buffer, random: RandomPool): string {
  return PREFIX + sealBox(masterKey, key, executionId, (nonce) => random(NONCE_BYTES).copy(nonce)).toString('base64');
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
    const opened = openBox(masterKey, Buffer.from(text.slice(PREFIX.length), 'base64'), executionId);
    if (opened.length !== DATA_KEY_BYTES) throw new Error('a wrapped data key of the wrong length');
    // In memory of its own, as newDataKey's: the cache keeps it (runDataCipher.ts).
    const key = Buffer.alloc(DATA_KEY_BYTES);
    opened.copy(key);
    return key;
  } catch (error) {
    throw new DataKeyUnwrapError(executionId, error);
  }
}
