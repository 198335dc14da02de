import { createHash } from 'node:crypto';

/** Unambiguous when read aloud or copied by hand, as the login codes: no 0/O, 1/I/L. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const LENGTH = 8;

/**
 * The code a sign-in page shows for an assistant's pending sign-in (its interaction `uid`), which a
 * member or operator reads off the page and approves in the console. Derived, not stored: the page
 * and the store compute it from the uid alike. It names a request, it is not a credential: only the
 * browser that holds the interaction's cookie can finish the sign-in it names, and only once an
 * operator has approved it. About 40 bits: two pending sign-ins (each lives ten minutes) never share one.
 */
export function signInRequestCode(uid: string): string {
  const digest = createHash('sha256').update(`seqflow sign-in request ${uid}`, 'utf8').digest();
  const code = Array.from(digest.subarray(0, LENGTH), (byte) => ALPHABET[byte % ALPHABET.length]).join('');
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A request code as typed (any case, with or without the dash or spaces), in the form the page shows; null when it cannot be one. */
export function normalizeSignInRequestCode(typed: string): string | null {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== LENGTH || [...code].some((c) => !ALPHABET.includes(c))) return null;
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
