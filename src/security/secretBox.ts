import { type KeyObject, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptedSecret } from '../domain/organizations/organizationEvents.ts';

/** Secrets at rest: AES-256-GCM under the master key, a fresh 96-bit IV each time (random, or from the caller's random pool). */
export function encryptSecret(plaintext: string, masterKey: Buffer | KeyObject, iv: Buffer = randomBytes(12)): EncryptedSecret {
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

/** The master key cannot open a secret: it is not the key the secret was sealed with (or the secret was altered). */
export class SecretUndecryptableError extends Error {
  constructor(cause: unknown) {
    super('the master key cannot open this secret: it was sealed under another key (check SEQFLOW_MASTER_KEY)', { cause });
    this.name = 'SecretUndecryptableError';
  }
}

export function decryptSecret(secret: EncryptedSecret, masterKey: Buffer | KeyObject): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(secret.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(secret.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(secret.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new SecretUndecryptableError(error);
  }
}
