/** What stands in a recorded text where a secret's value was: its name, never any of the value. */
export const redactedSecret = (name: string) => `[secret:${name}]`;

export interface SecretRedaction {
  text(text: string): string;
  /** A JSON value with every string (and key) redacted. */
  json(value: unknown): unknown;
}

/**
 * Replaces every copy of the given secrets' values in what is recorded or shown of a request and
 * its answer: as written, and percent-encoded as a URL carries it. A server that echoes a header
 * back, an error that quotes the URL: none reaches the log, a trace or an error with the value in
 * it. Longer values first, so a secret that contains another is replaced whole.
 */
export function secretRedaction(secrets: Readonly<Record<string, string>>): SecretRedaction {
  const forms = Object.entries(secrets)
    .flatMap(([name, value]) => [...new Set([value, encodeURIComponent(value)])].map((form) => ({ form, name })))
    .sort((a, b) => b.form.length - a.form.length);
  const text = (input: string) => (forms.length === 0 ? input : forms.reduce((out, { form, name }) => out.split(form).join(redactedSecret(name)), input));
  const json = (value: unknown): unknown =>
    typeof value === 'string' ? text(value) : Array.isArray(value) ? value.map(json) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), json(v)])) : value;
  return { text, json };
}
