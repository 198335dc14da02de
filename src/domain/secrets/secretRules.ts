/**
 * An organization's secrets (issue 61): values a flow's requests need (an API token, a password)
 * that must never be read back. Named like a variable, so `{{secrets.<name>}}` is unambiguous;
 * their values go into a request's URL or a header, so they hold no line break or NUL, and they are
 * long enough that redacting every copy of one in what comes back cannot mangle ordinary text.
 */
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const SECRET_VALUE_MIN_CHARS = 8;
export const SECRET_VALUE_MAX_CHARS = 8_192;
/** How many secrets an organization may hold. */
export const SECRETS_MAX = 200;

export function secretNameProblem(name: string): string | null {
  return SECRET_NAME.test(name) ? null : `secret name '${name.slice(0, 80)}' must start with a letter and hold only letters, digits and _ (at most 64)`;
}

export function secretValueProblem(value: string): string | null {
  if (value.length < SECRET_VALUE_MIN_CHARS) return `a secret's value must be at least ${SECRET_VALUE_MIN_CHARS} characters: a shorter one could not be told apart from ordinary text when it is redacted`;
  if (value.length > SECRET_VALUE_MAX_CHARS) return `a secret's value must be at most ${SECRET_VALUE_MAX_CHARS} characters`;
  if (/[\r\n\0]/.test(value)) return "a secret's value cannot hold a line break or NUL: it goes into a URL or a header";
  return null;
}
