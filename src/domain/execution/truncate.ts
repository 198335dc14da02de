/** Strings longer than `max` characters, anywhere in a value, cut with a marker that says the full length. */
export function truncateStrings(value: unknown, max = 2000): unknown {
  if (typeof value === 'string') return value.length > max ? `${value.slice(0, max)}… [truncated: ${value.length} characters]` : value;
  if (Array.isArray(value)) return value.map((item) => truncateStrings(item, max));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, truncateStrings(v, max)]));
  return value;
}
