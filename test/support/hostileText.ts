import fc from 'fast-check';

/** Text as the world sends it: NULs, lone surrogates, emoji at every cut, RTL and combining marks, long runs. */
export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.array(fc.constantFrom('\u0000', '\ud83d', '\ude00', '😀', '👩‍👩‍👧', '\u202e', 'e\u0301', 'ש', 'x', '\ufffd', '\\', '"'), { maxLength: 700 }).map((parts) => parts.join('')),
  fc.constantFrom('x'.repeat(511) + '😀', '😀'.repeat(2100), 'a'.repeat(2 * 1024 * 1024 - 200)),
);

/** Bytes as a receiver may answer them: no UTF-8 at all, NULs, a character cut at the end. */
export const hostileBytes = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 1500 }), hostileText.map((text) => Buffer.from(text, 'utf8').subarray(0, 700)));
