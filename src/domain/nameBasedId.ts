import { createHash } from 'node:crypto';

/**
 * A UUID that names what it identifies: the same parts always give the same id (SHA-256 of the
 * parts, joined by NUL, in the UUID layout with version 8 and the RFC variant). What several
 * processes may create at once (a run's delivery, a schedule's firing) is created once, under it.
 */
export function nameBasedId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
