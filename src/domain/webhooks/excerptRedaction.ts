/** Query values shorter than this are too common to be secrets, and would blank out ordinary text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Text about a delivery (the receiver's answer, a network error, the guard's refusal) with every
 * part of the callback URL that may be a secret replaced: its whole query, each query value, its
 * fragment and any credentials, as written and as percent-encoded. Receivers put tokens in their
 * URLs; the excerpt goes to the log, the API and audit exports.
 */
export function redactUrlSecrets(text: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return text;
  }
  const secrets = new Set<string>();
  const add = (value: string) => {
    if (value.length < MIN_SECRET_LENGTH) return;
    secrets.add(value);
    secrets.add(encodeURIComponent(value));
  };
  if (parsed.search.length > 1) secrets.add(parsed.search.slice(1));
  for (const [, value] of parsed.searchParams) add(value);
  add(parsed.hash.slice(1));
  add(decodeURIComponent(parsed.password));
  add(decodeURIComponent(parsed.username));
  // Longest first, so a query is replaced whole rather than value by value.
  let redacted = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) redacted = redacted.split(secret).join('[redacted]');
  return redacted;
}
