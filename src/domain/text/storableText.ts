/**
 * The one boundary for text that comes from outside and goes into an event: a receiver's answer, a
 * thrown message, a model's reply or refusal, a provider's error, a client's metadata. PostgreSQL's
 * jsonb refuses the NUL character and unpaired UTF-16 surrogates, and a cut made inside a surrogate
 * pair leaves one unpaired; an event that cannot be stored is an outcome that is never recorded
 * (a delivery re-attempted forever, a run left `running`). So such text is made storable here, and
 * every cut falls on a code point. Caller input sent in a request is refused instead (400), by
 * `unstorableJson`; this is for text the service must record whatever it holds.
 */

// eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL refuses
export const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `text` with each NUL and unpaired surrogate replaced by U+FFFD (the replacement character). */
export const storableText = (text: string): string => text.replaceAll('\u0000', '\ufffd').toWellFormed();

/** At most `maxUnits` UTF-16 units of `text`, never ending inside a surrogate pair. */
export function cutAtCodePoint(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  const end = Math.max(0, maxUnits);
  // A high surrogate as the last unit kept would lose its pair: cut before it.
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}

/**
 * Storable text of at most `maxUnits` UTF-16 units, cut on a code point; when cut, `marker(length)`
 * (the full length) is appended within the bound, so a reader knows what is missing.
 */
export function storableExcerpt(text: string, maxUnits: number, marker?: (length: number) => string): string {
  const clean = storableText(text);
  if (clean.length <= maxUnits) return clean;
  const suffix = marker?.(clean.length) ?? '';
  // A bound too small for the marker keeps what fits of the text alone.
  if (suffix.length >= maxUnits) return cutAtCodePoint(clean, maxUnits);
  return cutAtCodePoint(clean, maxUnits - suffix.length) + suffix;
}

/**
 * Bytes from outside (a body that may be no UTF-8 at all) as storable text: at most `maxBytes` of
 * them, cut before a UTF-8 sequence that would not fit whole; invalid sequences become U+FFFD, then NULs.
 */
export function storableTextOfBytes(bytes: Uint8Array, maxBytes: number): string {
  let end = Math.min(bytes.length, Math.max(0, maxBytes));
  if (end < bytes.length) {
    // Back over continuation bytes (10xxxxxx) to the start of the sequence the cut falls in: at most 3.
    let start = end;
    while (start > 0 && end - start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
    if (((bytes[start] ?? 0) & 0xc0) !== 0x80) end = start;
  }
  return storableText(new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes.subarray(0, end)));
}
