import type { OrganizationStates } from '../caches/organizationStates.ts';
import { decryptSecret } from '../security/secretBox.ts';

/** An organization's secrets by name, decrypted: only those asked for, and only those it holds. */
export type SecretReader = (organizationId: string, names: readonly string[]) => Promise<Record<string, string>>;

/**
 * Reads the secrets a request names from the organization's state (cached ciphertext; decrypted
 * here, at the moment of sending, and held no longer than the request's rendering).
 */
export function organizationSecretReader(organizations: OrganizationStates, masterKey: Buffer): SecretReader {
  return async (organizationId, names) => {
    if (names.length === 0) return {};
    const { state } = await organizations.load(organizationId);
    if (state.status !== 'created') return {};
    const found: Record<string, string> = {};
    for (const name of names) {
      const secret = state.secrets.get(name);
      if (secret) found[name] = decryptSecret(secret.encryptedValue, masterKey);
    }
    return found;
  };
}
