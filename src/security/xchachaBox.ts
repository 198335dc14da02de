import sodium from 'sodium-native';

/**
 * XChaCha20-Poly1305 (libsodium's one-shot call, through sodium-native) in the one framing the run
 * data and its keys share: nonce, ciphertext and tag in one Buffer. `ad`, the associated data, binds
 * the box to what it belongs to (a run's id): opened with another, it does not open.
 */
export const NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
export const TAG_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;

/** `message` sealed under `key` with `nonce` (NONCE_BYTES), filled in by `fillNonce` into the box itself. */
export function sealBox(key: Buffer, message: Buffer, ad: string, fillNonce: (nonce: Buffer) => void): Buffer {
  const box = Buffer.allocUnsafe(NONCE_BYTES + message.length + TAG_BYTES);
  const nonce = box.subarray(0, NONCE_BYTES);
  fillNonce(nonce);
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(box.subarray(NONCE_BYTES), message, Buffer.from(ad, 'utf8'), null, nonce, key);
  return box;
}

/** The message in `box`; throws when the box is too short, or does not open under `key` and `ad`. */
export function openBox(key: Buffer, box: Buffer, ad: string): Buffer {
  if (box.length < NONCE_BYTES + TAG_BYTES) throw new Error('a sealed box shorter than its nonce and tag');
  const message = Buffer.allocUnsafe(box.length - NONCE_BYTES - TAG_BYTES);
  sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(message, null, box.subarray(NONCE_BYTES), Buffer.from(ad, 'utf8'), box.subarray(0, NONCE_BYTES), key);
  return message;
}
