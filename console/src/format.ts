/** Short, readable renderings for tables: times in the browser's zone, durations, ids. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }) : '—');
export const duration = (ms: number | null | undefined) => (ms == null ? '—' : ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`);
export const shortId = (id: string) => id.slice(0, 8);
export const json = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
/** A cost in US dollars as recorded (to a millionth of a dollar); `no price` when none was known. */
export const usd = (value: number | null | undefined) => (value == null ? 'no price' : `$${Number(value.toFixed(6))}`);
