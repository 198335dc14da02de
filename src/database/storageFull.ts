/**
 * Whether an error means the database has no room to write (SQLSTATE 53100 disk_full, or the
 * class's generic 53000): every write fails until an operator makes room, reads still work. Such a
 * request is answered 503 DATABASE_STORAGE_FULL, and /health counts it, rather than 500 INTERNAL.
 */
const STORAGE_FULL_CODES = new Set(['53100', '53000']);

export function isStorageFull(error: unknown): boolean {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (STORAGE_FULL_CODES.has((current as { code?: string }).code ?? '')) return true;
  }
  return false;
}
